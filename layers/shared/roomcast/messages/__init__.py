"""roomcast.messages."""
