"""roomcast.keys."""
