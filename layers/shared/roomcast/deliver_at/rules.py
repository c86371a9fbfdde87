"""Deliver-at: when a scheduled message is released, and what carries its wait. Pure.

A message published with ``deliverAt`` (or ``deliverAfterMs``) is stored at once and *released* at
that time: its first envelopes go to every destination then, and its expiry clock starts then.
Until then one ``Release`` task per message carries the wait (roomcast.outbox.tasks):

- ``HOPS``: the outbox queue, with SQS's delay (at most 15 minutes a send; a task that comes back
  early is sent again for the rest);
- ``SCHEDULER``: an EventBridge Scheduler one-time schedule that puts the task on the outbox queue
  SCHEDULER_LEAD_MS before the time (a schedule fires within a minute), and one SQS delay for the
  last stretch, to the second.

A schedule costs about one request whatever the wait; hops cost a send, a receive and a delete
per 15 minutes. SCHEDULER_ABOVE_MS is where the schedule gets cheaper (``make bench``:
bench/deliver_at.py prices both; docs/decisions/0039-deliver-at.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from roomcast.platform import DAY_MS, MINUTE_MS, SECOND_MS, InvalidRequest, iso_from_ms

MAX_DELIVER_AHEAD_MS: Final = 365 * DAY_MS
# A deliverAt this little in the past (a publisher's clock running behind) is delivered at once;
# further back it is refused: more likely a mistake than a message wanted now.
DELIVER_AT_PAST_TOLERANCE_MS: Final = MINUTE_MS
# SQS's longest delay: the most one hop waits.
HOP_MAX_MS: Final = 900 * SECOND_MS
# A schedule fires this long before the release time; the rest is one SQS delay, to the second.
SCHEDULER_LEAD_MS: Final = 5 * MINUTE_MS
# SQS delays count whole seconds: a release's hop waits the whole seconds left, rounded down, and
# comes back less than this early; the outbox function waits out that last stretch itself, so that a
# message is released within its second, never before it (ADR 0049).
LAST_STRETCH_MS: Final = SECOND_MS
# Waits longer than this go through the scheduler (when the stack has one): below it, hops cost less.
SCHEDULER_ABOVE_MS: Final = 30 * MINUTE_MS


class Carrier(StrEnum):
    HOPS = "hops"
    SCHEDULER = "scheduler"


def release_at_ms(now_ms: int, deliver_at_ms: int | None, deliver_after_ms: int | None) -> int | None:
    """When a message published now is released (None: at once), from what the publisher asked:
    an absolute ``deliverAt`` or a ``deliverAfterMs`` wait, not both. Raises InvalidRequest
    (``deliver_at_out_of_range``) for a time more than a minute ago or more than 365 days ahead."""
    if deliver_at_ms is not None and deliver_after_ms is not None:
        raise InvalidRequest(
            "give deliverAt or deliverAfterMs, not both",
            [
                {
                    "field": "body.deliverAfterMs",
                    "problem": "not with deliverAt",
                    "type": "deliver_at_conflict",
                }
            ],
            code="deliver_at_conflict",
        )
    if deliver_after_ms is not None:
        wanted, field = now_ms + deliver_after_ms, "body.deliverAfterMs"
    elif deliver_at_ms is not None:
        wanted, field = deliver_at_ms, "body.deliverAt"
    else:
        return None
    latest = now_ms + MAX_DELIVER_AHEAD_MS
    if wanted > latest or wanted < now_ms - DELIVER_AT_PAST_TOLERANCE_MS:
        problem = (
            f"{iso_from_ms(wanted)} is not between {iso_from_ms(now_ms - DELIVER_AT_PAST_TOLERANCE_MS)}"
            f" and {iso_from_ms(latest)} (now, up to 365 days ahead)"
        )
        raise InvalidRequest(
            f"the delivery time {problem}",
            [{"field": field, "problem": problem, "type": "deliver_at_out_of_range"}],
            code="deliver_at_out_of_range",
        )
    return wanted if wanted > now_ms else None


def carrier_for(wait_ms: int, scheduler_available: bool) -> Carrier:
    """What carries a wait of ``wait_ms``: the scheduler past the crossover, when there is one."""
    return Carrier.SCHEDULER if scheduler_available and wait_ms > SCHEDULER_ABOVE_MS else Carrier.HOPS


def schedule_fires_at_ms(release_at_ms: int) -> int:
    """When a release's one-time schedule fires: SCHEDULER_LEAD_MS early, on a whole second
    (a schedule's ``at()`` takes seconds)."""
    return (release_at_ms - SCHEDULER_LEAD_MS) // SECOND_MS * SECOND_MS


def hop_delay_seconds(due_at_ms: int, now_ms: int) -> int:
    """A release's SQS delay: the whole seconds left (rounded down), at most 15 minutes. It comes
    back at most LAST_STRETCH_MS early for its last hop."""
    return min(HOP_MAX_MS, max(0, due_at_ms - now_ms)) // SECOND_MS


def hops_for(wait_ms: int) -> int:
    """SQS sends a wait of ``wait_ms`` takes on the outbox queue (one per 15 minutes, at least one)."""
    return max(1, -(-wait_ms // HOP_MAX_MS))
