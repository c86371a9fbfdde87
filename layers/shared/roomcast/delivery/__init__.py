"""Delivery mechanics shared by the push and pull functions: endings (dead letters, failover)
and the delivery log."""
