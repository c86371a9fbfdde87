"""Messages and delivery records as DynamoDB items: keys, the item of a message and of a delivery
record, and back (the store: roomcast.messages.store).

| entity      | PK                                   | SK                 |
| ----------- | ------------------------------------ | ------------------ |
| message     | ``TENANT#<tenant>#MSG#<messageId>``  | ``MSG``            |
| delivery    | ``TENANT#<tenant>#MSG#<messageId>``  | ``DLV#<subId>``    |
| first tries | ``TENANT#<tenant>#MSG#<messageId>``  | ``FIRST``          |

A message item also carries ``GSI1PK`` = ``TENANT#<tenant>#ROOM#<roomId>#MSGS#<shard>`` (one of
ROOM_INDEX_SHARDS, from the message id) and ``GSI1SK`` = ``<publishedAt>#<messageId>``: the
``ByRoom`` index lists a room's messages newest first (by time range or event type;
roomcast.messages.room_index). The index holds only the keys and ``eventType``: its copy of a message is
one write unit whatever its payload and destinations, and a list reads the messages themselves.

A scheduled message (``deliverAtMs``, roomcast.deliver_at.rules) also carries ``GSI2PK`` =
``TENANT#<tenant>#ROOM#<roomId>#SCHED#<shard>`` and ``GSI2SK`` = ``<deliverAt>#<messageId>`` while
it waits: the sparse ``Scheduled`` index lists what is scheduled, soonest first. Its release or
cancellation removes them (roomcast.deliver_at.marks).

The message item holds each destination's first record (``pending``), so a publish is one
write whatever its fan-out; each later change of a destination is its own small ``DLV#`` item,
except a delivered first try made beside others of its message, which is an entry of the message's
``FIRST`` item (roomcast.messages.first_tries). One Query reads a message with all its deliveries.
Records expire (DynamoDB TTL) a while after their last change, so the status stays readable well
past the message's own expiry.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import Any, Final

from roomcast.messages.model import Delivery, DeliveryStatus, Message
from roomcast.platform import camel_fields, from_camel_fields, iso_from_ms, items, payload_text

RECORD_RETENTION_SECONDS: Final = 30 * 24 * 3600
MESSAGE_MAX_LIFE_MS: Final = 365 * 24 * 3600 * 1000
MESSAGE_SORT_KEY: Final = "MSG"
DELIVERY_PREFIX: Final = "DLV#"
ROOM_INDEX: Final = "ByRoom"
SCHEDULED_INDEX: Final = "Scheduled"
# A room's index rows are spread over this many partition keys (roomcast.messages.room_index).
ROOM_INDEX_SHARDS: Final = 8
# The outbox (docs/decisions/0018-signed-receipts-and-outbox.md): a message item whose first
# envelopes could not all be sent carries ``outbox`` = ``unsent`` and the ids in ``unsent``; the
# stream's filter (template.yaml, OutboxFunction) passes exactly those changes to the outbox.
OUTBOX_ATTRIBUTE: Final = "outbox"
OUTBOX_UNSENT: Final = "unsent"
UNSENT_ATTRIBUTE: Final = "unsent"
# A message with ordered destinations carries ``ordered`` = true: the stream's filter passes its
# insertion to the outbox, which hands it to its keys (docs/decisions/0041-ordering-keys.md).
ORDERED_ATTRIBUTE: Final = "ordered"
# A position in a room's messages: the index sort key of the last message of a page,
# ``<publishedAt>#<messageId>`` (the rest of the key is rebuilt from it, the tenant and the room).
ROOM_INDEX_SORT_KEY: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z#msg_[0-9a-f]{32}"
)
# A publish request that sent (or left to the outbox) the first envelopes of all it stored writes
# this small item (``TENANT#<tenant>#SENT#<requestId>``; a retry that finished one stored message's
# sends writes one for the message id), so that a retry of a keyed message answers without sending
# again (docs/decisions/0021-publish-batches-and-reads.md) and its publish check finds nothing to
# do (docs/decisions/0028-every-delivery-ends.md). Its own item: an UpdateItem of a message item
# would cost write units by the message's size (up to 128 KiB of payload).
SENDS_DONE_SORT_KEY: Final = "SENT"


def room_index_shard(message_id: str) -> int:
    """The shard of a message's index row: from its id's last hex digits (random, or a hash)."""
    return int(message_id[-4:], 16) % ROOM_INDEX_SHARDS


def room_shard_key(tenant_id: str, room_id: str, shard: int) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}#MSGS#{shard}"


def scheduled_shard_key(tenant_id: str, room_id: str, shard: int) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}#SCHED#{shard}"


def message_partition_key(tenant_id: str, message_id: str) -> str:
    return f"TENANT#{tenant_id}#MSG#{message_id}"


def sends_done_key(tenant_id: str, unit: str) -> str:
    return f"TENANT#{tenant_id}#SENT#{unit}"


def ttl() -> int:
    return int(time.time()) + RECORD_RETENTION_SECONDS


def ttl_after(duration_ms: int) -> int:
    return int(time.time()) + duration_ms // 1000


def message_ttl(message: Message) -> int:
    """Kept 30 days past the message's life: its expiry, or a year for a message that never
    expires (retries can stretch that far: 50 attempts of up to 7 days)."""
    start_ms = message.sent_from_ms  # a scheduled message's life starts at its release
    life_ms = (message.expires_at_ms - start_ms) if message.expires_at_ms else MESSAGE_MAX_LIFE_MS
    return (start_ms + life_ms) // 1000 + RECORD_RETENTION_SECONDS


def message_to_item(message: Message) -> items.Item:
    keys = {"PK": message_partition_key(message.tenant_id, message.id), "SK": MESSAGE_SORT_KEY}
    # The payload is stored as JSON text: DynamoDB cannot hold floats like 1e400 or empty keys faithfully.
    payload = payload_text(message.payload)
    fields = camel_fields(message)
    for kept in (
        "filteredOut",
        "schemaErrors",
        "deliverAtMs",
        "releasedBy",
        "cancelledAt",
        "orderingKey",
        "orderedTo",
        "orderingNumber",
        "traceparent",
    ):
        if not fields[kept]:
            del fields[kept]  # most messages: none, and nothing stored
    shard = room_index_shard(message.id)
    scheduled = {}
    if message.scheduled and message.deliver_at_ms is not None:
        scheduled = {
            "GSI2PK": scheduled_shard_key(message.tenant_id, message.room_id, shard),
            "GSI2SK": f"{iso_from_ms(message.deliver_at_ms)}#{message.id}",
        }
    # The outbox's stream filter passes the insertion of a message with ordered destinations.
    ordered = {ORDERED_ATTRIBUTE: True} if message.ordered_to else {}
    return keys | {
        "entity": "message",
        **fields,
        **ordered,
        "payload": payload,
        "ttl": message_ttl(message),
        "GSI1PK": room_shard_key(message.tenant_id, message.room_id, shard),
        "GSI1SK": f"{message.published_at}#{message.id}",
        **scheduled,
    }


def message_from_item(item: items.Item) -> Message:
    return from_camel_fields(Message, {**item, "payload": json.loads(item["payload"])})


def delivery_to_item(delivery: Delivery) -> items.Item:
    keys = {
        "PK": message_partition_key(delivery.tenant_id, delivery.message_id),
        "SK": delivery_key(delivery),
    }
    fields = camel_fields(delivery)
    # An attempt's empty fields are left out (the history is read back with them as null).
    fields["history"] = [{k: v for k, v in entry.items() if v is not None} for entry in fields["history"]]
    # An ordered delivery's place in its key's line stays on its record once written: a write that
    # does not know it (None) neither stores nor removes it.
    # So do its room, its first due time and who handed it over (the metrics' placing of it).
    for kept in ("ordering", "roomId", "sentFromMs", "handedFrom"):
        if fields[kept] is None:
            del fields[kept]
    return keys | {"entity": "delivery", **fields, "ttl": ttl()}


def update_expression(delivery: Delivery) -> dict[str, Any]:
    """UpdateItem arguments writing a delivery's state and appending its history entries."""
    item = delivery_to_item(delivery)
    history = item.pop("history")
    for name in ("PK", "SK"):
        item.pop(name)
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    sets: list[str] = []
    removes: list[str] = []
    for index, (name, value) in enumerate(item.items()):
        names[f"#a{index}"] = name
        if value is None:
            removes.append(f"#a{index}")
        else:
            sets.append(f"#a{index} = :v{index}")
            values[f":v{index}"] = items.to_attributes({name: value})[name]
    if history:
        names["#history"] = "history"
        sets.append("#history = list_append(if_not_exists(#history, :none), :history)")
        values[":none"] = {"L": []}
        values[":history"] = items.to_attributes({"history": history})["history"]
    expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
    return {
        "UpdateExpression": expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }


def delivery_key(delivery: Delivery) -> str:
    return f"{DELIVERY_PREFIX}{delivery.subscription_id}"


# A destination's first record lives inside its message item. Every first record is the same —
# pending, no attempt yet, as of the publishing — so the item keeps only each destination's type
# (``destinationTypes``, in the order of ``destinations``): a write unit is 1 KB, and five records
# in full took 750 bytes. A first record that is not the usual one is kept in full (``deliveries``,
# by subscription id, with only what it cannot take from the message; items written before the
# short form have it too).
_EMBEDDED_FIELDS = ("subscriptionType", "status", "attempts", "nextAttemptAt", "updatedAt")


def _embedded_delivery(delivery: Delivery) -> items.Item:
    fields = camel_fields(delivery)
    return {name: fields[name] for name in _EMBEDDED_FIELDS}


def _first_record_fields(message_fields: items.Item, subscription_id: str) -> items.Item:
    """A destination's usual first record: pending, due and last changed at the publishing
    (``waiting`` for its key's turn when the destination is ordered); for a scheduled message, due
    at its deliverAt and ``scheduled`` until released (``cancelled``, changed then, once cancelled)."""
    published_at = message_fields["publishedAt"]
    deliver_at_ms = message_fields.get("deliverAtMs")
    if deliver_at_ms is None:
        status, due, changed = DeliveryStatus.PENDING, published_at, published_at
    else:
        cancelled_at = message_fields.get("cancelledAt")
        status = DeliveryStatus.SCHEDULED
        if cancelled_at is not None:
            status = DeliveryStatus.CANCELLED
        elif message_fields.get("releasedBy") is not None:
            status = DeliveryStatus.PENDING
        due, changed = iso_from_ms(int(deliver_at_ms)), cancelled_at or published_at
    if status is DeliveryStatus.PENDING and subscription_id in (message_fields.get("orderedTo") or ()):
        status = DeliveryStatus.WAITING
    return {"status": status.value, "attempts": 0, "nextAttemptAt": due, "updatedAt": changed}


def _is_first_record(delivery: Delivery, usual: items.Item) -> bool:
    fields = camel_fields(delivery)
    return not delivery.history and all(fields[name] == value for name, value in usual.items())


def stored_message_item(
    message: Message, deliveries: Sequence[Delivery], *, left_to_outbox: bool = False
) -> items.Item:
    """The message item as published: the message with each destination's first record;
    ``left_to_outbox``: marked so that the outbox sends every first envelope (from its birth: the
    table's stream passes the item's insertion to the outbox function)."""
    item = message_to_item(message)
    if left_to_outbox and message.destinations:
        item[OUTBOX_ATTRIBUTE] = OUTBOX_UNSENT
        item[UNSENT_ATTRIBUTE] = list(message.destinations)
    in_order = [d.subscription_id for d in deliveries] == list(message.destinations)
    usual = [_first_record_fields(item, d.subscription_id) | {"lastError": None} for d in deliveries]
    if in_order and all(_is_first_record(d, u) for d, u in zip(deliveries, usual, strict=True)):
        item["destinationTypes"] = [d.subscription_type.value for d in deliveries]
    else:
        item["deliveries"] = {d.subscription_id: _embedded_delivery(d) for d in deliveries}
    return item


def embedded_deliveries(message_item: items.Item) -> list[Delivery]:
    """The first records of a message's destinations, as stored inside the message item."""
    shared = {
        "messageId": message_item["id"],
        "tenantId": message_item["tenantId"],
        "roomId": message_item["roomId"],
        "sentFromMs": message_item.get("deliverAtMs") or message_item["publishedAtMs"],
    }
    stored = message_item.get("deliveries")
    if stored is None:
        types = message_item.get("destinationTypes") or []
        destinations = message_item.get("destinations") or []
        stored = {
            s: {**_first_record_fields(message_item, s), "subscriptionType": t}
            for s, t in zip(destinations, types, strict=True)
        }
    # An ordered destination's first record carries its place in its key's line, as its own
    # record will once written: so that a write from it (Clear All) reaches the key.
    ordered = set(message_item.get("orderedTo") or ())
    slot = {
        "roomId": message_item["roomId"],
        "key": message_item.get("orderingKey"),
        "number": message_item.get("orderingNumber"),
    }
    return [
        from_camel_fields(
            Delivery,
            {
                **raw,
                **shared,
                "subscriptionId": subscription_id,
                "ordering": slot if subscription_id in ordered else None,
            },
        )
        for subscription_id, raw in stored.items()
    ]


def delivery_from_item(item: items.Item) -> Delivery:
    return from_camel_fields(Delivery, item)
