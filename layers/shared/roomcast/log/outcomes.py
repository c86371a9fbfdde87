"""What one envelope's handling came to: the push function's and the endings' results."""

from __future__ import annotations

from enum import StrEnum


class DeliveryOutcome(StrEnum):
    DELIVERED = "delivered"  # the subscriber answered 2xx
    RETRY = "retry"  # an attempt failed; the next one is scheduled
    HOP = "hop"  # not due yet: re-sent to wait longer than SQS holds a message (not an attempt)
    DEAD = "dead"  # attempts used up or a permanent failure; kept as a dead letter
    FAILOVER = "failover"  # handed to the subscription's failover instead of dead
    EXPIRED = "expired"  # the room's expiry came first
    HELD = "held"  # paused, or no room under its flow control: re-sent to wait (not an attempt)
    CLEARED = "cleared"  # queued before the subscription's "Clear All": ended, never sent
    ABORTED = "aborted"  # the receiver asked for no more attempts (webhook-delivery: abort)
    FILTERED = "filtered"  # its subscription's transformation cancelled it: ended, never sent
    SLOW_LANE = "slow_lane"  # its endpoint is marked slow: moved to the slow lane (not an attempt)
    SUPERSEDED = "superseded"  # a retry made due now (or a duplicate) already took its place
