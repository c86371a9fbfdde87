"""roomcast.log."""
