"""A message's first-try deliveries in one item (``FIRST`` under its message; ADR 0023, "Issue 29:
a message's first tries in one item").

| PK                                  | SK        | attributes                                       |
| ----------------------------------- | --------- | ------------------------------------------------ |
| ``TENANT#<tenant>#MSG#<messageId>`` | ``FIRST`` | ``entries``: ``<subId> <at> <ms> <http> <wrote>`` |

(``entries`` is a string set.)

Most deliveries end at their first try: a webhook answering 2xx with no body. Such a record says
the same thing for every destination — ``delivered``, one attempt, one ``post`` in its history — so
what tells one from another is its request's start (``at``, epoch ms), its duration (``ms``), the
answer's HTTP status (``http``) and when the record was made (``wrote``, ms after the start). A push
batch that delivered several destinations of one message at their first try adds them to this one
item (one UpdateItem of one ``ADD`` to a string set, one write unit while the item is under 1 KB)
instead of writing a record item each (one unit each).

- **What it holds:** only a record that reads back equal to what was written (``entry`` checks the
  round trip): delivered, at the first try, no error, no answer body, not ordered. Any other record
  is its destination's own ``DLV#`` item, as before.
- **Precedence:** an entry here is a delivered webhook, and a delivered webhook is the truth
  whatever a record said before or says after (a late duplicate's, as ``record_delivered``'s
  unconditional put already made it): a reader takes the entry over the destination's own item, and
  that over the first record inside the message. Two entries of one destination (a duplicate
  delivered twice) read as the first of them in text order, on every read.
- **Bounded:** at most ``MAX_ENTRIES`` entries (the item stays under 1 KB); an update that would go
  past them is refused by its condition and its records are put as their own items.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Final

from roomcast.dal import items
from roomcast.dal.message_items import DELIVERY_PREFIX, delivery_from_item, message_partition_key, ttl
from roomcast.dal.table import Key, key
from roomcast.domain.clock import iso_from_ms, ms_from_iso
from roomcast.domain.messages import AttemptEvent, AttemptRecord, Delivery, DeliveryStatus
from roomcast.domain.models import SubscriptionType

FIRST_TRIES_SORT_KEY: Final = "FIRST"
FIRST_TRIES_ENTITY: Final = "firstTries"
# An entry is ~65 bytes: ten and the keys stay under 1 KB.
MAX_ENTRIES: Final = 10
_ENTRIES: Final = "entries"

# An entry: ``<subscriptionId> <at> <ms> <http> <wrote>`` (module docstring).
Entry = str


def first_tries_key(tenant_id: str, message_id: str) -> Key:
    return key(message_partition_key(tenant_id, message_id), FIRST_TRIES_SORT_KEY)


def entry(delivery: Delivery) -> Entry | None:
    """The entry of a plain first-try 'delivered' record, or None when the record says more than an
    entry can hold (it is then written as the destination's own item)."""
    if (
        delivery.status is not DeliveryStatus.DELIVERED
        or delivery.attempts != 1
        or delivery.ordering is not None
        or len(delivery.history) != 1
    ):
        return None
    tried = delivery.history[0]
    if tried.duration_ms is None or tried.http_status is None:
        return None
    try:
        started_ms = ms_from_iso(tried.started_at)
        wrote_ms = ms_from_iso(delivery.updated_at) - started_ms
        text = f"{delivery.subscription_id} {started_ms} {tried.duration_ms} {tried.http_status} {wrote_ms}"
        read_back = from_entry(delivery.tenant_id, delivery.message_id, text)
    except ValueError:  # a time roomcast does not write, or an id that is not one word
        return None
    return text if read_back == delivery else None


def from_entry(tenant_id: str, message_id: str, text: Entry) -> Delivery:
    """The record an entry stands for: the destination's delivered first try."""
    subscription_id, at, ms, http, wrote = text.split(" ")
    started_ms = int(at)
    return Delivery(
        message_id,
        tenant_id,
        subscription_id,
        SubscriptionType.PUSH,
        DeliveryStatus.DELIVERED,
        1,
        updated_at=iso_from_ms(started_ms + int(wrote)),
        history=(AttemptRecord(0, AttemptEvent.POST, iso_from_ms(started_ms), int(ms), int(http)),),
    )


def deliveries_in(item: items.Item) -> dict[str, Delivery]:
    """The records a ``FIRST`` item holds, by subscription id."""
    tenant_id, message_id = _ids(str(item["PK"]))
    found: dict[str, Delivery] = {}
    for text in sorted(item.get(_ENTRIES) or ()):
        record = from_entry(tenant_id, message_id, text)
        found.setdefault(record.subscription_id, record)
    return found


def is_first_tries(item: items.Item) -> bool:
    return item.get("SK") == FIRST_TRIES_SORT_KEY


def update_request(entries: Collection[Entry]) -> dict[str, Any]:
    """UpdateItem arguments adding ``entries`` to a message's ``FIRST`` item (made by the update
    when the message has none), unless it would then hold more than MAX_ENTRIES (its condition
    refuses the whole update). Three clauses whatever the count: the emulator parses each."""
    return {
        "UpdateExpression": "SET #entity = :entity, #ttl = :ttl ADD #entries :added",
        "ConditionExpression": "attribute_not_exists(#entries) OR size(#entries) <= :room",
        "ExpressionAttributeNames": {"#entries": _ENTRIES, "#entity": "entity", "#ttl": "ttl"},
        "ExpressionAttributeValues": {
            ":added": {"SS": sorted(entries)},
            ":room": {"N": str(MAX_ENTRIES - len(entries))},
            ":entity": {"S": FIRST_TRIES_ENTITY},
            ":ttl": {"N": str(ttl())},
        },
    }


def current_records(rows: Iterable[items.Item]) -> dict[tuple[str, str], Delivery]:
    """The destinations' records among ``rows`` (items read from messages' partitions), by (message
    id, subscription id): each destination's own item, and a ``FIRST`` item's entry over it."""
    records: dict[tuple[str, str], Delivery] = {}
    first_tries: list[items.Item] = []
    for row in rows:
        if str(row["SK"]).startswith(DELIVERY_PREFIX):
            record = delivery_from_item(row)
            records[(record.message_id, record.subscription_id)] = record
        elif is_first_tries(row):
            first_tries.append(row)
    for row in first_tries:
        records |= {(d.message_id, d.subscription_id): d for d in deliveries_in(row).values()}
    return records


def _ids(partition_key: str) -> tuple[str, str]:
    """(tenant id, message id) from ``TENANT#<tenant>#MSG#<messageId>``."""
    tenant_part, _, message_id = partition_key.rpartition("#MSG#")
    return tenant_part.removeprefix("TENANT#"), message_id
