"""Webhook delivery for PUSH subscriptions: Standard Webhooks signatures and a pinned, capped POST."""
