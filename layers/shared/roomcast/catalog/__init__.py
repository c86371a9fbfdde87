"""roomcast.catalog."""
