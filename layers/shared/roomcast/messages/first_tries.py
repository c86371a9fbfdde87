"""A message's first tries in one item (``FIRST`` under its message; ADR 0023, "Issue 29: a
message's first tries in one item").

| PK                                  | SK        | attributes                                  |
| ----------------------------------- | --------- | ------------------------------------------- |
| ``TENANT#<tenant>#MSG#<messageId>`` | ``FIRST`` | ``entries``: one text per first try (below) |

(``entries`` is a string set; ``roomId`` and ``sentFromMs``, the message's room and first due time,
are the records' own, which the metrics place them by: roomcast.metrics.)

Most deliveries end at their first try: a webhook answering 2xx with no body. Such a record says
the same thing for every destination — ``delivered``, one attempt, one ``post`` in its history — so
what tells one from another is its request's start (``at``, epoch ms), its duration (``ms``), the
answer's HTTP status (``http``) and when the record was made (``wrote``, ms after the start): the
entry ``<subId> <at> <ms> <http> <wrote>``. A first try that failed and will be retried says two
things more, when it is due (``due``, ms after the start) and why it failed: the entry
``<subId> <at> <ms> <http> <wrote> <due> <error>`` (``http`` is ``-`` without an answer). A push
batch that tried several destinations of one message for the first time adds them to this one item
(one UpdateItem of one ``ADD`` to a string set, one write unit while the item is under 1 KB)
instead of writing a record item each (one unit each).

- **What it holds:** only a record that reads back equal to what was written (``entry`` checks the
  round trip): at the first try, delivered or retrying, no answer body, not ordered, and short
  enough (``MAX_ENTRY_BYTES``). Any other record is its destination's own ``DLV#`` item, as before.
- **Precedence** (``current_records``): a delivered entry is a delivered webhook, and a delivered
  webhook is the truth whatever a record said before or says after (a late duplicate's, as
  ``record_first_tries``'s unconditional put already made it): a reader takes it over the
  destination's own item, and that over the first record inside the message. An own item of a
  later attempt (more attempts than the entry) is the record whenever the entry was written: a
  batch writes its entries at its end, and its retries may have run before. A retrying entry is
  read as its update would have left the destination's own item: written after an own item that
  had not ended, the entry is the record (the own item's history before its own); an own item that
  had ended keeps its state (the update, conditional on that, was refused); an own item written at
  or after the entry (the retry's, a retry-now's, a Clear All's) is the record, with the entry's
  attempt first in its history. Two entries of one kind for one destination (a duplicate tried
  twice) read as the first of them in text order, on every read.
- **Bounded:** at most ``MAX_ENTRIES`` entries of at most ``MAX_ENTRY_BYTES`` (the item stays under
  1 KB); an update that would go past them is refused by its condition and its records are written
  as their own items.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import Any, Final

from roomcast.catalog import SubscriptionType
from roomcast.messages.items import DELIVERY_PREFIX, delivery_from_item, message_partition_key, ttl
from roomcast.messages.model import TERMINAL_STATUSES, Attempt, AttemptEvent, Delivery, DeliveryStatus
from roomcast.platform import Key, iso_from_ms, items, key, ms_from_iso

FIRST_TRIES_SORT_KEY: Final = "FIRST"
FIRST_TRIES_ENTITY: Final = "firstTries"
# A delivered entry is ~65 bytes; nine of at most MAX_ENTRY_BYTES, the keys, the room and the
# first due time stay under 1 KB.
MAX_ENTRIES: Final = 9
MAX_ENTRY_BYTES: Final = 88
_NO_ANSWER: Final = "-"
_ENTRIES: Final = "entries"
ROOM_ATTRIBUTE: Final = "roomId"
SENT_FROM_ATTRIBUTE: Final = "sentFromMs"

# An entry: ``<subscriptionId> <at> <ms> <http> <wrote>[ <due> <error>]`` (module docstring).
Entry = str


def first_tries_key(tenant_id: str, message_id: str) -> Key:
    return key(message_partition_key(tenant_id, message_id), FIRST_TRIES_SORT_KEY)


def entry(delivery: Delivery) -> Entry | None:
    """The entry of a plain first try's record, delivered or retrying, or None when the record says
    more than an entry can hold (it is then written as the destination's own item)."""
    if (
        delivery.status not in (DeliveryStatus.DELIVERED, DeliveryStatus.RETRYING)
        or delivery.attempts != 1
        or delivery.ordering is not None
        or len(delivery.history) != 1
    ):
        return None
    tried = delivery.history[0]
    answered = tried.http_status is not None or delivery.status is DeliveryStatus.RETRYING
    if tried.duration_ms is None or not answered:
        return None
    try:
        started_ms = ms_from_iso(tried.started_at)
        wrote_ms = ms_from_iso(delivery.updated_at) - started_ms
        http = _NO_ANSWER if tried.http_status is None else tried.http_status
        text = f"{delivery.subscription_id} {started_ms} {tried.duration_ms} {http} {wrote_ms}"
        if delivery.status is DeliveryStatus.RETRYING:
            due_ms = ms_from_iso(delivery.next_attempt_at or "") - started_ms
            text += f" {due_ms} {delivery.last_error}"
        read_back = from_entry(delivery.tenant_id, delivery.message_id, text)
    except ValueError:  # a time roomcast does not write, or an id that is not one word
        return None
    fits = len(text.encode()) <= MAX_ENTRY_BYTES
    return text if fits and read_back == delivery else None


def one_per_destination(deliveries: Iterable[Delivery]) -> list[Delivery]:
    """A batch's first tries, one per destination: a batch may hold one destination twice (a
    duplicate envelope after a crash); its delivered try wins, else the first given."""
    kept: dict[tuple[str, str], Delivery] = {}
    for delivery in deliveries:
        destination = (delivery.message_id, delivery.subscription_id)
        held = kept.get(destination)
        if held is None or _delivered_over(delivery, held):
            kept[destination] = delivery
    return list(kept.values())


def _delivered_over(delivery: Delivery, held: Delivery) -> bool:
    return delivery.status is DeliveryStatus.DELIVERED and held.status is not DeliveryStatus.DELIVERED


def from_entry(
    tenant_id: str, message_id: str, text: Entry, room_id: str | None = None, sent_from_ms: int | None = None
) -> Delivery:
    """The record an entry stands for: the destination's first try, delivered or retrying (of a
    message of ``room_id``, first due at ``sent_from_ms``, when the item says)."""
    fields = text.split(" ", 6)
    if len(fields) == 5:
        subscription_id, at, ms, http, wrote = fields
        status, error, due_at = DeliveryStatus.DELIVERED, None, None
    elif len(fields) == 7:
        subscription_id, at, ms, http, wrote, due, error = fields
        status, due_at = DeliveryStatus.RETRYING, iso_from_ms(int(at) + int(due))
    else:
        raise ValueError(f"not a first try's entry: {text!r}")
    started_ms = int(at)
    answer = None if http == _NO_ANSWER else int(http)
    tried = Attempt(0, AttemptEvent.POST, iso_from_ms(started_ms), int(ms), answer, error)
    return Delivery(
        message_id,
        tenant_id,
        subscription_id,
        SubscriptionType.PUSH,
        status,
        1,
        error,
        due_at,
        updated_at=iso_from_ms(started_ms + int(wrote)),
        history=(tried,),
        room_id=room_id,
        sent_from_ms=sent_from_ms,
    )


def deliveries_in(item: items.Item) -> dict[str, Delivery]:
    """The records a ``FIRST`` item holds, by subscription id: a destination's delivered entry over
    its retrying one, the first in text order of each kind."""
    tenant_id, message_id = _ids(str(item["PK"]))
    room_id, sent_from = item.get(ROOM_ATTRIBUTE), item.get(SENT_FROM_ATTRIBUTE)
    found: dict[str, Delivery] = {}
    for text in sorted(item.get(_ENTRIES) or ()):
        record = from_entry(
            tenant_id, message_id, text, room_id, None if sent_from is None else int(sent_from)
        )
        held = found.get(record.subscription_id)
        if held is None or _delivered_over(record, held):
            found[record.subscription_id] = record
    return found


def is_first_tries(item: items.Item) -> bool:
    return item.get("SK") == FIRST_TRIES_SORT_KEY


def update_request(entries: Collection[Entry], placed: Delivery | None = None) -> dict[str, Any]:
    """UpdateItem arguments adding ``entries`` to a message's ``FIRST`` item (made by the update
    when the message has none), unless it would then hold more than MAX_ENTRIES (its condition
    refuses the whole update); with the room and first due time of ``placed`` (one of the records)
    when it knows them. Three clauses whatever the count: the emulator parses each."""
    sets = ["#entity = :entity", "#ttl = :ttl"]
    names = {"#entries": _ENTRIES, "#entity": "entity", "#ttl": "ttl"}
    values: dict[str, Any] = {
        ":added": {"SS": sorted(entries)},
        ":room": {"N": str(MAX_ENTRIES - len(entries))},
        ":entity": {"S": FIRST_TRIES_ENTITY},
        ":ttl": {"N": str(ttl())},
    }
    if placed is not None and placed.room_id is not None and placed.sent_from_ms is not None:
        sets += ["#roomId = :roomId", "#sentFrom = :sentFrom"]
        names |= {"#roomId": ROOM_ATTRIBUTE, "#sentFrom": SENT_FROM_ATTRIBUTE}
        values |= {":roomId": {"S": placed.room_id}, ":sentFrom": {"N": str(placed.sent_from_ms)}}
    return {
        "UpdateExpression": f"SET {', '.join(sets)} ADD #entries :added",
        "ConditionExpression": "attribute_not_exists(#entries) OR size(#entries) <= :room",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }


def current_records(rows: Iterable[items.Item]) -> dict[tuple[str, str], Delivery]:
    """The destinations' records among ``rows`` (items read from messages' partitions), by (message
    id, subscription id): each destination's own item, or its ``FIRST`` entry where that takes
    precedence (module docstring)."""
    records: dict[tuple[str, str], Delivery] = {}
    first_tries: list[items.Item] = []
    for row in rows:
        if str(row["SK"]).startswith(DELIVERY_PREFIX):
            record = delivery_from_item(row)
            records[(record.message_id, record.subscription_id)] = record
        elif is_first_tries(row):
            first_tries.append(row)
    for row in first_tries:
        for entry_record in deliveries_in(row).values():
            destination = (entry_record.message_id, entry_record.subscription_id)
            own = records.get(destination)
            records[destination] = entry_record if own is None else _current(entry_record, own)
    return records


def _current(entry_record: Delivery, own: Delivery) -> Delivery:
    """A destination's record, from its entry and its own item, as the writes would have left one
    item (module docstring): a delivered entry as it is (its put replaced the item); a retrying
    entry written after the own item, over it (its update appended to the item's history), unless
    the item had ended (its update was refused); an own item written at or after a retrying entry,
    over it, with the entry's history before its own. Both times are roomcast's ISO-8601 text in
    UTC with milliseconds, which sorts as time does."""
    if entry_record.status is DeliveryStatus.DELIVERED:
        return entry_record
    if own.attempts > entry_record.attempts:
        # A later attempt's record, whenever the entry was written: a push batch writes its first
        # tries' entries at its end, and the retry may have run (and failed) before that; read as
        # the entry, the record would call the retry's own retry superseded, and drop it.
        return replace(own, history=_history(entry_record, own))
    if own.updated_at < entry_record.updated_at:
        if own.status in TERMINAL_STATUSES:
            return own
        return replace(entry_record, history=_history(own, entry_record))
    return replace(own, history=_history(entry_record, own))


def _history(earlier: Delivery, later: Delivery) -> tuple[Attempt, ...]:
    """Both records' attempts, once each, in the order they started."""
    added = tuple(attempt for attempt in later.history if attempt not in earlier.history)
    return tuple(sorted(earlier.history + added, key=lambda attempt: attempt.started_at))


def _ids(partition_key: str) -> tuple[str, str]:
    """(tenant id, message id) from ``TENANT#<tenant>#MSG#<messageId>``."""
    tenant_part, _, message_id = partition_key.rpartition("#MSG#")
    return tenant_part.removeprefix("TENANT#"), message_id
