"""roomcast.publishing."""
