"""Metrics over time of a subscription, a room and the tenant (docs/metrics.md)."""
