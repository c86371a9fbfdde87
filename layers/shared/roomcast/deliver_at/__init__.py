"""roomcast.deliver_at."""
