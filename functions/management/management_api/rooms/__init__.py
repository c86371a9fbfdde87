"""Rooms: a tenant's channels, with the message expiry and the default delivery policy."""
