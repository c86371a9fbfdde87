"""Subscriptions: a room's PUSH (signed webhook) and PULL (own queue) receivers."""
