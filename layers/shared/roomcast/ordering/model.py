"""Ordering keys (docs/decisions/0041-ordering-keys.md): the messages of one key reach an ordered
subscription one at a time, in publish order. Per (subscription, key) the table keeps a *head* —
the message in flight, or the reason the key is paused — and the key's *waiting* messages in
publish order. This module is the rule, pure: given the head as read, the first waiting messages
and what just happened, what to write and what to send (roomcast.ordering.store writes it, the
outbox function applies it).

Every step is keyed by what triggered it (``trigger``): the head remembers which trigger claimed
its message, so the same trigger seen again — a stream record handed back after a crash between
the claim and the send — sends that message again (a duplicate at worst), and any other trigger
leaves a claimed key alone."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from roomcast.catalog import OnDeadKey
from roomcast.messages import DeliveryStatus, Message

ORDERING_KEY_MAX_CHARS: Final = 128
# A keyed message is stored with its place in each ordered destination's key line in one DynamoDB
# transaction (at most 100 writes): a room holds at most this many ordered subscriptions.
MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM: Final = 50
# What a key may hold: it appears in a URL path (…/ordering-keys/{key}) and ends table keys.
ORDERING_KEY_PATTERN: Final = rf"^[A-Za-z0-9_.:@+=-]{{1,{ORDERING_KEY_MAX_CHARS}}}$"
_ORDERING_KEY = re.compile(ORDERING_KEY_PATTERN)


def is_ordering_key(value: str) -> bool:
    return _ORDERING_KEY.fullmatch(value) is not None


class KeyState(StrEnum):
    FLOWING = "flowing"
    PAUSED = "paused"


@dataclass(frozen=True)
class KeyRef:
    """Which key of which subscription."""

    tenant_id: str
    room_id: str
    subscription_id: str
    ordering_key: str


@dataclass(frozen=True)
class KeyHead:
    """A key's head as stored: its message in flight (claimed by ``claimed_by``), or paused on a
    dead message with the reason."""

    ref: KeyRef
    in_flight: str | None = None
    claimed_by: str | None = None
    state: KeyState = KeyState.FLOWING
    dead_message_id: str | None = None
    paused_reason: str | None = None
    paused_at_ms: int | None = None
    # A fresh token at each write: a step's write goes through only on the head it read (None:
    # a head written before revisions).
    revision: str | None = None
    # A message waits behind the one in flight (set by the step that saw it): its release must read
    # the line. Unset, a release goes without reading it (roomcast.ordering.steps).
    queued: bool = False

    @property
    def paused(self) -> bool:
        return self.state is KeyState.PAUSED


@dataclass(frozen=True)
class Arrived:
    """A message of the key was stored for the subscription (the message item's insertion)."""

    message_id: str


@dataclass(frozen=True)
class Ended:
    """The subscription's delivery of a message of the key ended (``failed_over``: its DEAD
    record hands it to the failover subscription, which is not a dead letter)."""

    message_id: str
    status: DeliveryStatus
    reason: str | None = None
    failed_over: bool = False


@dataclass(frozen=True)
class Resumed:
    """An operator resumed a paused key: ``skip`` drops its dead message, else it is sent again
    first (its replay keeps the order). ``request``: the resume's own id, so that two resumes in
    one millisecond are two triggers."""

    skip: bool
    at_ms: int
    request: str = ""


type KeyEvent = Arrived | Ended | Resumed


def numbers_wanted(messages: Sequence[Message]) -> dict[str, int]:
    """How many fresh numbers of each key's line these messages take: one per message with ordered
    destinations (the caller takes them, one counter write per key, side by side)."""
    counts = Counter(m.ordering_key for m in messages if m.ordered_to and m.ordering_key is not None)
    return {key: count for key, count in counts.items() if key is not None}


def number_in_lines(messages: Sequence[Message], last: Mapping[str, int]) -> list[Message]:
    """The messages, each with ordered destinations numbered in its key's line in the order given
    (the order of the request); ``last``: for each key of ``numbers_wanted(messages)``, the last of
    the fresh numbers taken for it."""
    wanted = numbers_wanted(messages)
    next_number = {key: last[key] - count + 1 for key, count in wanted.items()}
    numbered = []
    for message in messages:
        key = message.ordering_key
        if message.ordered_to and key is not None:
            message = replace(message, ordering_number=next_number[key])
            next_number[key] += 1
        numbered.append(message)
    return numbered


def trigger_of(event: KeyEvent) -> str:
    """What claimed a key, as its head remembers it: the same record seen again is the same."""
    match event:
        case Arrived(message_id=message_id):
            return f"arrived:{message_id}"
        case Ended(message_id=message_id):
            return f"ended:{message_id}"
        case Resumed(at_ms=at_ms, request=request):
            return f"resumed:{at_ms}:{request}" if request else f"resumed:{at_ms}"


@dataclass(frozen=True)
class KeyPlan:
    """What one event does to a key, in this order: forget the ended message's place in line,
    release the head it held (only if it still holds it), pause on it, or claim the next message
    and send it; ``resend``: a message this trigger claimed before and may not have sent."""

    forget: str | None = None
    release: str | None = None
    pause: str | None = None  # the dead message the key pauses on, for ``reason``
    reason: str | None = None
    unpause: bool = False
    claim: str | None = None
    resend: str | None = None
    replay: str | None = None  # the dead message to send again first (a resume without skipping)
    queued: bool | None = None  # the head's ``queued`` after this (None: left as it is)

    @property
    def sends(self) -> str | None:
        return self.claim or self.resend or self.replay


NOTHING: Final = KeyPlan()


def plan(head: KeyHead | None, waiting: Sequence[str], event: KeyEvent, on_dead: OnDeadKey) -> KeyPlan:
    """What ``event`` does to a key whose head reads ``head`` (None: never claimed, or released
    and gone) and whose oldest waiting messages are ``waiting`` (publish order, the in-flight one
    included while it waits); with whether a message is left waiting behind the one in flight
    (``queued``: a key held with none behind it is released without reading its line)."""
    steps = _plan(head, waiting, event, on_dead)
    if steps.resend is not None:
        return steps
    in_flight = steps.claim or steps.replay
    if in_flight is None and steps.release is None and head is not None:
        in_flight = head.in_flight
    queued = any(m not in (steps.forget, in_flight) for m in waiting)
    if steps.release is not None or steps.pause is not None or steps.unpause or steps.claim or steps.replay:
        return replace(steps, queued=queued)
    if queued and head is not None and head.in_flight is not None and not head.paused and not head.queued:
        return replace(steps, queued=True)  # a message waits behind the one in flight: say so
    return steps


def releases_alone(event: Ended, on_dead: OnDeadKey) -> bool:
    """Whether an ending may release its key without reading the line, when the key holds its
    message and nothing is queued behind it: one that does not pause the key."""
    return not (event.status is DeliveryStatus.DEAD and not event.failed_over and on_dead is OnDeadKey.PAUSE)


def _plan(head: KeyHead | None, waiting: Sequence[str], event: KeyEvent, on_dead: OnDeadKey) -> KeyPlan:
    in_flight = head.in_flight if head is not None else None
    paused = head is not None and head.paused
    if in_flight is not None and head is not None and head.claimed_by == trigger_of(event):
        return KeyPlan(resend=in_flight)  # this trigger claimed it before: it may not have sent
    if isinstance(event, Resumed):
        return _resume(head, waiting, event)
    if isinstance(event, Arrived):
        if in_flight is None and not paused and waiting:
            return KeyPlan(claim=waiting[0])
        return NOTHING
    ended = event.message_id
    if paused and head is not None and head.dead_message_id == ended:
        if event.status is DeliveryStatus.DEAD:
            return NOTHING  # its ending seen again: the key stays paused on it, in line
        # replayed from the dead letters and ended otherwise (delivered): the key goes on
        rest = [m for m in waiting if m != ended]
        return KeyPlan(forget=ended, unpause=True, claim=rest[0] if rest else None)
    dead_letter = event.status is DeliveryStatus.DEAD and not event.failed_over
    if dead_letter and on_dead is OnDeadKey.PAUSE and in_flight == ended:
        return KeyPlan(release=ended, pause=ended, reason=event.reason or "dead")
    rest = [m for m in waiting if m != ended]
    release = ended if in_flight == ended else None
    free = (in_flight is None or release is not None) and not paused
    return KeyPlan(forget=ended, release=release, claim=rest[0] if free and rest else None)


def _resume(head: KeyHead | None, waiting: Sequence[str], event: Resumed) -> KeyPlan:
    if head is None or not head.paused:
        return NOTHING
    dead = head.dead_message_id
    if event.skip or dead is None:
        rest = [m for m in waiting if m != dead]
        return KeyPlan(forget=dead, unpause=True, claim=rest[0] if rest else None)
    return KeyPlan(unpause=True, replay=dead)
