"""roomcast.filters."""
