"""roomcast.flow."""
