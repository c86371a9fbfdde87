"""Lambda authorizer of the HTTP API: API key → tenant."""
