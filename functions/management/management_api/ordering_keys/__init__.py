"""Ordering keys of a subscription: its paused keys, and their resume (docs/ordering-keys.md)."""
