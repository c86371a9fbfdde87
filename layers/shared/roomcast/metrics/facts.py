"""What happened to deliveries, read from the table's stream: each change of a message, of a
message's ``FIRST`` item or of a delivery record, before and after, becomes facts — an attempt
made or failed, a delivery ended (delivered, dead, ...), opened or closed, a latency, a delay
(docs/decisions/0046-metrics-from-the-table-stream.md).

Pure: the stream's images in, facts out. Each fact is read from the difference between an item's
old and new image, so a change is counted once whatever wrote it, and a record written again the
same (a duplicate's put) adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from roomcast.messages import (
    DELIVERY_PREFIX,
    FIRST_TRIES_SORT_KEY,
    HANDED_TO_FAILOVER,
    MESSAGE_SORT_KEY,
    OPEN_STATUSES,
    Attempt,
    AttemptEvent,
    Delivery,
    DeliveryStatus,
    deliveries_in,
    delivery_from_item,
    embedded_deliveries,
)
from roomcast.metrics.model import Count, Place, Sample
from roomcast.platform import items, ms_from_iso

_ENDS = {
    DeliveryStatus.DELIVERED: Count.DELIVERED,
    DeliveryStatus.DEAD: Count.DEAD,
    DeliveryStatus.EXPIRED: Count.EXPIRED,
    DeliveryStatus.ABORTED: Count.ABORTED,
    DeliveryStatus.CLEARED: Count.CLEARED,
    DeliveryStatus.CANCELLED: Count.CANCELLED,
    DeliveryStatus.FILTERED: Count.FILTERED_OUT,  # its transformation cancelled it
}
_FAILED_ANSWERS = (AttemptEvent.NACK, AttemptEvent.ACK_WAIT_EXPIRED)


@dataclass(frozen=True)
class Change:
    """One record of the table's stream: the item before and after (None: not there), and when
    DynamoDB made the change."""

    old: items.Item | None
    new: items.Item | None
    at_ms: int


@dataclass(frozen=True)
class Fact:
    """One thing that happened to a delivery, at ``at_ms``: a count, a sample of a distribution,
    or the delivery opened (+1) or closed (-1), which the backlog follows by ``sent_from_ms``."""

    place: Place
    at_ms: int
    count: Count | None = None
    sample: Sample | None = None
    value_ms: int = 0
    opened: int = 0
    sent_from_ms: int = 0


def facts_of(change: Change) -> list[Fact]:
    """The facts of one change of an item (none for items that are not messages' or deliveries')."""
    item = change.new if change.new is not None else change.old
    if item is None or change.new is None:
        return []  # a removal (the records' TTL) ends nothing
    sort_key = str(item.get("SK", ""))
    if sort_key == MESSAGE_SORT_KEY:
        return list(_message_facts(change.old, change.new, change.at_ms))
    if sort_key == FIRST_TRIES_SORT_KEY:
        return list(_first_tries_facts(change.old, change.new))
    if sort_key.startswith(DELIVERY_PREFIX):
        return list(_record_facts(change.old, change.new, change.at_ms))
    return []


def _place(record: Delivery) -> Place:
    return Place(record.tenant_id, record.room_id, record.subscription_id)


def _message_facts(old: items.Item | None, new: items.Item, at_ms: int) -> Iterator[Fact]:
    """A message stored opens a delivery to each destination due now and counts each filtered-out
    subscription; a scheduled one's release opens them then, its cancellation ends them."""
    published_ms = int(new["publishedAtMs"])
    records = embedded_deliveries(new)
    if old is None:
        for subscription_id in (entry["subscriptionId"] for entry in new.get("filteredOut") or ()):
            place = Place(str(new["tenantId"]), str(new["roomId"]), subscription_id)
            yield Fact(place, published_ms, Count.FILTERED_OUT)
        for record in records:
            if record.status in OPEN_STATUSES:
                yield from _opened(record, published_ms, 1)
        return
    if old.get("releasedBy") is None and new.get("releasedBy") is not None:
        for record in records:
            if record.status in OPEN_STATUSES:
                yield from _opened(record, at_ms, 1)
    if old.get("cancelledAt") is None and new.get("cancelledAt") is not None:
        for record in records:
            yield Fact(_place(record), at_ms, Count.CANCELLED)


def _attempt_facts(record: Delivery, attempt: Attempt) -> Iterator[Fact]:
    place, at_ms = _place(record), ms_from_iso(attempt.started_at)
    if attempt.event in (AttemptEvent.POST, AttemptEvent.SEND, AttemptEvent.PULL):
        yield Fact(place, at_ms, Count.ATTEMPTS)
    if attempt.event in (AttemptEvent.POST, AttemptEvent.SEND):
        # A webhook's answer is 2xx; a send into an AWS destination has no status, only an error.
        answered = attempt.event is AttemptEvent.SEND or (
            attempt.http_status is not None and 200 <= attempt.http_status < 300
        )
        if not answered or attempt.error is not None:
            yield Fact(place, at_ms, Count.FAILED_ATTEMPTS)
        if attempt.duration_ms is not None:
            yield Fact(place, at_ms, sample=Sample.ATTEMPT_LATENCY_MS, value_ms=attempt.duration_ms)
    elif attempt.event in _FAILED_ANSWERS:
        yield Fact(place, at_ms, Count.FAILED_ATTEMPTS)


def _ended_facts(record: Delivery, at_ms: int, *, was_open: bool) -> Iterator[Fact]:
    """A record that reached an end: counted by its status; the delivery closed if it was open."""
    place = _place(record)
    count = _ENDS[record.status]
    if record.status is DeliveryStatus.DEAD and HANDED_TO_FAILOVER in (record.last_error or ""):
        count = Count.FAILED_OVER
    yield Fact(place, at_ms, count)
    if record.status is DeliveryStatus.DELIVERED and record.sent_from_ms is not None:
        delay_ms = at_ms - record.sent_from_ms
        yield Fact(place, at_ms, sample=Sample.DELIVERY_DELAY_MS, value_ms=delay_ms)
    if was_open:
        yield from _opened(record, at_ms, -1)


def _first_tries_facts(old: items.Item | None, new: items.Item) -> Iterator[Fact]:
    """The first tries added to a message's ``FIRST`` item: each an attempt (a duplicate's too);
    a delivered one ends its delivery, unless the item already held a delivered one of that
    destination (the records read the first of them: roomcast.messages.first_tries)."""
    known = set(old.get("entries") or ()) if old is not None else set()
    delivered = {r.subscription_id for r in _entries(new, known) if r.status is DeliveryStatus.DELIVERED}
    for record in _entries(new, set(new.get("entries") or ()) - known):
        for attempt in record.history:
            yield from _attempt_facts(record, attempt)
        if record.status is DeliveryStatus.DELIVERED and record.subscription_id not in delivered:
            delivered.add(record.subscription_id)
            yield from _ended_facts(record, ms_from_iso(record.updated_at), was_open=True)


def _entries(item: items.Item, texts: set[str]) -> list[Delivery]:
    """The records of some of a ``FIRST`` item's entries, in text order (as they are read)."""
    return [r for text in sorted(texts) for r in deliveries_in({**item, "entries": {text}}).values()]


def _record_facts(old: items.Item | None, new: items.Item, at_ms: int) -> Iterator[Fact]:
    """A delivery's own record written: its new attempts, and the change of its status. Without
    an old image the record's state before was its first record inside the message (open), or
    nothing for a failover's first record (``handedFrom``)."""
    record = delivery_from_item(new)
    before = delivery_from_item(old) if old is not None else None
    for attempt in record.history:
        if before is None or attempt not in before.history:
            yield from _attempt_facts(record, attempt)
    was_open = before.status in OPEN_STATUSES if before is not None else record.handed_from is None
    is_open = record.status in OPEN_STATUSES
    changed_ms = ms_from_iso(record.updated_at) if record.updated_at else at_ms
    if record.status in _ENDS and (before is None or before.status is not record.status):
        yield from _ended_facts(record, changed_ms, was_open=was_open)
    elif was_open and not is_open:
        yield from _opened(record, changed_ms, -1)
    if is_open and not was_open:
        yield from _opened(record, changed_ms, 1)


def _opened(record: Delivery, at_ms: int, delta: int) -> Iterator[Fact]:
    """The delivery opened (+1) or closed (-1), by when it was first due; not on a record that
    does not say when (written before the metrics: never counted open either)."""
    if record.sent_from_ms is not None:
        yield Fact(_place(record), at_ms, opened=delta, sent_from_ms=record.sent_from_ms)
