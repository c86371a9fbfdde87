"""Management API: rooms and subscriptions over the HTTP API."""
