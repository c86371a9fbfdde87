"""Push function: delivers webhooks from the shared push queue."""
