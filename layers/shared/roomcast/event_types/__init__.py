"""roomcast.event_types."""
