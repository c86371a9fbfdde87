"""Idempotency keys: the one mechanism for single and batch publishes
(docs/decisions/0021-publish-batches-and-reads.md).

A keyed message's id comes from the tenant, the room and the key, and it is stored only if no
message has that id yet. A retry that finds the id taken answers by what is stored: the same
message with its sends done (recorded by its publish request, or by a retry that finished it) is
answered as it was; one whose sends are not recorded is another publish still running while it is
younger than PUBLISH_IN_PROGRESS_MS (409), else a publish that died, whose sends the retry
finishes; another message under the key is refused (422), and past the key's window the key names
a new message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from roomcast.messages import Message
from roomcast.platform import Conflict, InvalidRequest, RoomcastError, ids, limits
from roomcast.publishing.ports import PublishMarkRecords

# The publish function's 29 s timeout, rounded up: a publish still running is younger than this.
PUBLISH_IN_PROGRESS_MS: Final = 30_000


def message_id(tenant_id: str, room_id: str, idempotency_key: str | None) -> str:
    """A keyed message's id comes from its key (a retry finds what the first try stored)."""
    if idempotency_key:
        return ids.message_id_for(tenant_id, room_id, idempotency_key)
    return ids.new_message_id()


def key_reused() -> InvalidRequest:
    return InvalidRequest(
        "this Idempotency-Key (idempotencyKey in a batch) was used with a different message in the"
        " last 24 hours",
        code="idempotency_key_reused",
    )


def in_progress() -> Conflict:
    return Conflict("a publish with this Idempotency-Key is in progress; retry shortly")


def same_publish(stored: Message, retried: Message, correlation_id: str | None, now_ms: int) -> bool:
    """Whether a stored message is what a retried publish under the same key asked for, within
    the key's window (after it, the key may name a new message)."""
    return (
        (stored.event_type, stored.event_version, stored.payload)
        == (retried.event_type, retried.event_version, retried.payload)
        and (correlation_id is None or stored.correlation_id == correlation_id)
        and now_ms - stored.published_at_ms < limits.IDEMPOTENCY_WINDOW_MS
    )


@dataclass(frozen=True)
class Taken:
    """A keyed message whose id was taken: what the publish asked for, and what is stored."""

    asked: Message
    correlation_id: str | None  # as the publisher gave it (None: generated)
    stored: Message | None  # None: gone meanwhile (its time to live passed)


@dataclass(frozen=True)
class Resume:
    """A stored message whose publish died before recording its sends: finish them."""

    stored: Message


@dataclass(frozen=True)
class Anew:
    """The key's window is over: publish the message again, under a new id."""


Answer = Message | RoomcastError | Resume | Anew


def answer_taken(
    marks: PublishMarkRecords, tenant_id: str, taken: Sequence[Taken], now_ms: int
) -> list[Answer]:
    """What each taken keyed message answers, in order (one read of the sends-done marks)."""
    stored = [t.stored for t in taken if t.stored is not None]
    units = sorted({u for m in stored for u in (m.request_id, m.id) if u})
    done = marks.sends_done(tenant_id, units) if units else set()
    answers: list[Answer] = []
    for one in taken:
        kept = one.stored
        if kept is None or now_ms - kept.published_at_ms >= limits.IDEMPOTENCY_WINDOW_MS:
            answers.append(Anew())
        elif not same_publish(kept, one.asked, one.correlation_id, now_ms):
            answers.append(key_reused())
        elif kept.id in done or kept.request_id in done:
            answers.append(kept)
        elif now_ms - kept.published_at_ms < PUBLISH_IN_PROGRESS_MS:
            answers.append(in_progress())
        else:
            answers.append(Resume(kept))
    return answers
