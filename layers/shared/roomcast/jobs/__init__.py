"""roomcast.jobs."""
