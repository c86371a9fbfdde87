"""roomcast.platform."""
