"""roomcast.operations."""
