"""Publish API: POST /rooms/{roomId}/messages and POST /rooms/{roomId}/messages/batch."""
