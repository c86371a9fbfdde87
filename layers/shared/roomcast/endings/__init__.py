"""roomcast.endings."""
