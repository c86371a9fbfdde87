"""roomcast.outbox."""
