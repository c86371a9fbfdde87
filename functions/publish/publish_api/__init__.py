"""Publish API: POST /rooms/{roomId}/messages."""
