"""roomcast.ordering."""
