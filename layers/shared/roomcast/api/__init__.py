"""HTTP API plumbing shared by the API functions: one error shape, tenant from the authorizer."""
