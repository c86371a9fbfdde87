"""roomcast.pull."""
