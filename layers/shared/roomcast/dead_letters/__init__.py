"""roomcast.dead_letters."""
