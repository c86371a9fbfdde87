"""Messages and delivery records in DynamoDB.

| entity   | PK                                   | SK                 |
| -------- | ------------------------------------ | ------------------ |
| message  | ``TENANT#<tenant>#MSG#<messageId>``  | ``MSG``            |
| delivery | ``TENANT#<tenant>#MSG#<messageId>``  | ``DLV#<subId>``    |

A message item also carries ``GSI1PK`` = ``TENANT#<tenant>#ROOM#<roomId>#MSGS`` and ``GSI1SK`` =
``<publishedAt>#<messageId>``: the ``ByRoom`` index lists a room's messages newest first (by time
range, event type or destination). The index holds only the keys, ``eventType`` and
``destinations`` (what a list filters on): its copy of a message is one write unit whatever the
payload, and a list reads the messages themselves in the BatchGetItem that reads their deliveries.

The message item holds each destination's first record (``pending``), so a publish is one
write whatever its fan-out; each later change of a destination is its own small ``DLV#`` item.
One Query reads a message with all its deliveries. Records expire (DynamoDB TTL) a while after
their last change, so the status stays readable well past the message's own expiry.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.dal import items
from roomcast.dal.pages import Page, Position, position_value
from roomcast.dal.table import BATCH_WRITE_MAX_ITEMS, TableAccess, is_condition_failure, key
from roomcast.domain import limits
from roomcast.domain.clock import iso_from_ms
from roomcast.domain.fields import camel_fields, from_camel_fields
from roomcast.domain.messages import Delivery, DeliveryStatus, Message, TrackedMessage
from roomcast.domain.models import SubscriptionType
from roomcast.domain.payloads import payload_text
from roomcast.errors import NotFound

RECORD_RETENTION_SECONDS: Final = 30 * 24 * 3600
MESSAGE_MAX_LIFE_MS: Final = 365 * 24 * 3600 * 1000
_MESSAGE_SORT_KEY: Final = "MSG"
_DELIVERY_PREFIX: Final = "DLV#"
ROOM_INDEX: Final = "ByRoom"
# The outbox (docs/decisions/0018-signed-receipts-and-outbox.md): a message item whose first
# envelopes could not all be sent carries ``outbox`` = ``unsent`` and the ids in ``unsent``; the
# stream's filter (template.yaml, OutboxFunction) passes exactly those changes to the outbox.
OUTBOX_ATTRIBUTE: Final = "outbox"
OUTBOX_UNSENT: Final = "unsent"
UNSENT_ATTRIBUTE: Final = "unsent"
# Query rounds one list request may take to fill a page when filters skip items.
_MAX_LIST_ROUNDS: Final = 5
# A position in a room's messages: the index sort key of the last message of a page,
# ``<publishedAt>#<messageId>`` (the rest of the key is rebuilt from it, the tenant and the room).
_ROOM_INDEX_SORT_KEY: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z#msg_[0-9a-f]{32}"
)
# A publish request that sent (or left to the outbox) the first envelopes of all it stored writes
# this small item (``TENANT#<tenant>#SENT#<requestId>``; a retry that finished one stored message's
# sends writes one for the message id), so that a retry of a keyed message answers without sending
# again (docs/decisions/0021-publish-batches-and-reads.md) and its publish check finds nothing to
# do (docs/decisions/0028-every-delivery-ends.md). Its own item: an UpdateItem of a message item
# would cost write units by the message's size (up to 128 KiB of payload).
_SENDS_DONE_SORT_KEY: Final = "SENT"
# A retry-now claims a retrying delivery before it sends its envelope (the attributes, on the
# delivery's own item), so concurrent retry-nows send one envelope and count it once; a claim
# left by a retry-now that died is taken over after this long.
_RETRY_CLAIM: Final = "retryClaim"
_RETRY_CLAIMED_AT: Final = "retryClaimedAtMs"
RETRY_CLAIM_MS: Final = 30_000
# Writes of one batch publish running at once (PutItems of keyed messages, BatchWriteItems).
_PARALLEL_WRITES: Final = 8


class MessageExists(RuntimeError):
    """A message with this id is already stored (a publish retried under its Idempotency-Key);
    ``stored`` is that message when DynamoDB returned it with the refusal."""

    def __init__(self, message_id: str, stored: Message | None = None) -> None:
        super().__init__(message_id)
        self.stored = stored


def room_messages_key(tenant_id: str, room_id: str) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}#MSGS"


def _room_index_key(tenant_id: str, index_partition: str, index_sort_key: str) -> dict[str, Any]:
    """The whole key of a message's row in the ``ByRoom`` index (as a Query's ExclusiveStartKey),
    from its index sort key (whose format the caller checked) and what the list knows."""
    message_id = index_sort_key.rpartition("#")[2]
    return {
        **key(message_partition_key(tenant_id, message_id), _MESSAGE_SORT_KEY),
        "GSI1PK": {"S": index_partition},
        "GSI1SK": {"S": index_sort_key},
    }


@dataclass(frozen=True)
class MessageFilter:
    """What a room's message list keeps: an event type, a publishing window (ISO-8601, inclusive),
    messages routed to one subscription."""

    event_type: str | None = None
    since: str | None = None
    until: str | None = None
    subscription_id: str | None = None


def message_partition_key(tenant_id: str, message_id: str) -> str:
    return f"TENANT#{tenant_id}#MSG#{message_id}"


def sends_done_key(tenant_id: str, unit: str) -> str:
    return f"TENANT#{tenant_id}#SENT#{unit}"


@dataclass(frozen=True)
class DeliveryPage:
    """Open deliveries found in a page of a room's messages (message id, record), and the position
    of the next page (None at the end)."""

    found: list[tuple[str, Delivery]]
    next_position: Position | None


def _ttl() -> int:
    return int(time.time()) + RECORD_RETENTION_SECONDS


def _ttl_after(duration_ms: int) -> int:
    return int(time.time()) + duration_ms // 1000


def _message_ttl(message: Message) -> int:
    """Kept 30 days past the message's life: its expiry, or a year for a message that never
    expires (retries can stretch that far: 50 attempts of up to 7 days)."""
    life_ms = (
        (message.expires_at_ms - message.published_at_ms) if message.expires_at_ms else MESSAGE_MAX_LIFE_MS
    )
    return (message.published_at_ms + life_ms) // 1000 + RECORD_RETENTION_SECONDS


def message_to_item(message: Message) -> items.Item:
    keys = {"PK": message_partition_key(message.tenant_id, message.id), "SK": _MESSAGE_SORT_KEY}
    # The payload is stored as JSON text: DynamoDB cannot hold floats like 1e400 or empty keys faithfully.
    payload = payload_text(message.payload)
    return keys | {
        "entity": "message",
        **camel_fields(message),
        "payload": payload,
        "ttl": _message_ttl(message),
        "GSI1PK": room_messages_key(message.tenant_id, message.room_id),
        "GSI1SK": f"{message.published_at}#{message.id}",
    }


def message_from_item(item: items.Item) -> Message:
    return from_camel_fields(Message, {**item, "payload": json.loads(item["payload"])})


def delivery_to_item(delivery: Delivery) -> items.Item:
    keys = {
        "PK": message_partition_key(delivery.tenant_id, delivery.message_id),
        "SK": _delivery_key(delivery),
    }
    fields = camel_fields(delivery)
    # An attempt's empty fields are left out (the history is read back with them as null).
    fields["history"] = [{k: v for k, v in entry.items() if v is not None} for entry in fields["history"]]
    return keys | {"entity": "delivery", **fields, "ttl": _ttl()}


def _update_expression(delivery: Delivery) -> dict[str, Any]:
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


def _delivery_key(delivery: Delivery) -> str:
    return f"{_DELIVERY_PREFIX}{delivery.subscription_id}"


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


def _first_record_fields(published_at: str) -> items.Item:
    """A destination's usual first record: pending, due and last changed at the publishing."""
    return {
        "status": DeliveryStatus.PENDING.value,
        "attempts": 0,
        "nextAttemptAt": published_at,
        "updatedAt": published_at,
    }


def _is_first_record(delivery: Delivery, message: Message) -> bool:
    usual = _first_record_fields(message.published_at) | {"lastError": None}
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
    if in_order and all(_is_first_record(d, message) for d in deliveries):
        item["destinationTypes"] = [d.subscription_type.value for d in deliveries]
    else:
        item["deliveries"] = {d.subscription_id: _embedded_delivery(d) for d in deliveries}
    return item


def embedded_deliveries(message_item: items.Item) -> list[Delivery]:
    """The first records of a message's destinations, as stored inside the message item."""
    shared = {"messageId": message_item["id"], "tenantId": message_item["tenantId"]}
    stored = message_item.get("deliveries")
    if stored is None:
        first = _first_record_fields(message_item["publishedAt"])
        types = message_item.get("destinationTypes") or []
        destinations = message_item.get("destinations") or []
        stored = {s: {**first, "subscriptionType": t} for s, t in zip(destinations, types, strict=True)}
    return [
        from_camel_fields(Delivery, {**raw, **shared, "subscriptionId": subscription_id})
        for subscription_id, raw in stored.items()
    ]


def delivery_from_item(item: items.Item) -> Delivery:
    return from_camel_fields(Delivery, item)


def _in_parallel[T](work: Callable[[T], None], inputs: Sequence[T]) -> None:
    if len(inputs) <= 1:
        for one in inputs:
            work(one)
        return
    with ThreadPoolExecutor(max_workers=min(_PARALLEL_WRITES, len(inputs))) as pool:
        list(pool.map(work, inputs))


class MessageStore(TableAccess):
    def put_message(
        self,
        message: Message,
        deliveries: Sequence[Delivery],
        *,
        if_new: bool = False,
        left_to_outbox: bool = False,
    ) -> int:
        """Store a message with the first record of each destination inside it: one PutItem
        whatever the number of destinations. Later changes of a destination are items of their
        own (small writes, no rewrite of the payload). Returns the number of DynamoDB calls.
        ``if_new``: only if no message has this id yet, else MessageExists (nothing written).
        ``left_to_outbox``: the outbox sends its first envelopes (``stored_message_item``)."""
        item = stored_message_item(message, deliveries, left_to_outbox=left_to_outbox)
        condition: dict[str, Any] = {}
        if if_new:
            condition = {
                "ConditionExpression": "attribute_not_exists(PK)",
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        try:
            self._client.put_item(TableName=self._table_name, Item=items.to_attributes(item), **condition)
        except ClientError as error:
            if if_new and is_condition_failure(error):
                old: Any = error.response.get("Item")  # ReturnValuesOnConditionCheckFailure
                stored = message_from_item(items.from_attributes(old)) if old else None
                raise MessageExists(message.id, stored) from error
            raise
        return 1

    def put_messages(
        self,
        batch: Sequence[tuple[Message, Sequence[Delivery]]],
        *,
        if_new: bool = False,
        left_to_outbox: bool = False,
    ) -> dict[str, Exception]:
        """Store several messages, each as ``put_message`` does, and return what failed by message
        id (``MessageExists`` for an ``if_new`` message already stored, or the error). Without
        ``if_new``: BatchWriteItem, 25 messages a call; with it: one conditional PutItem each
        (BatchWriteItem takes no conditions). Calls run in parallel."""
        failed: dict[str, Exception] = {}

        def put_one(pair: tuple[Message, Sequence[Delivery]]) -> None:
            try:
                self.put_message(*pair, if_new=True, left_to_outbox=left_to_outbox)
            except Exception as error:
                failed[pair[0].id] = error

        def put_chunk(chunk: Sequence[tuple[Message, Sequence[Delivery]]]) -> None:
            requests = [
                {
                    "PutRequest": {
                        "Item": items.to_attributes(stored_message_item(m, d, left_to_outbox=left_to_outbox))
                    }
                }
                for m, d in chunk
            ]
            try:
                self._batch_write(requests)
            except Exception as error:
                failed.update((message.id, error) for message, _ in chunk)

        if if_new:
            _in_parallel(put_one, list(batch))
        else:
            chunks = [
                batch[i : i + BATCH_WRITE_MAX_ITEMS] for i in range(0, len(batch), BATCH_WRITE_MAX_ITEMS)
            ]
            _in_parallel(put_chunk, chunks)
        return failed

    def mark_sends_done(self, tenant_id: str, units: Sequence[str]) -> None:
        """Record that these publish units sent (or left to the outbox) all their first envelopes:
        a publish request (``pub_…``: every message it stored) or one message a retry finished
        (``msg_…``). One small item each, 25 a call, kept as long as an idempotency key can name
        one of their messages. A request without it died before the end: its publish check
        finishes its sends, and a keyed retry does too."""
        self._batch_write(
            [
                {
                    "PutRequest": {
                        "Item": items.to_attributes(
                            {
                                "PK": sends_done_key(tenant_id, unit),
                                "SK": _SENDS_DONE_SORT_KEY,
                                "entity": "sendsDone",
                                "ttl": _ttl_after(limits.IDEMPOTENCY_WINDOW_MS),
                            }
                        )
                    }
                }
                for unit in dict.fromkeys(units)
            ]
        )

    def sends_done(self, tenant_id: str, units: Sequence[str]) -> set[str]:
        """Which of these publish units recorded their sends done (one BatchGetItem per 100)."""
        keys = [key(sends_done_key(tenant_id, unit), _SENDS_DONE_SORT_KEY) for unit in units]
        prefix = len(sends_done_key(tenant_id, ""))
        return {item["PK"][prefix:] for item in self._batch_get(keys)}

    def open_deliveries(
        self,
        tenant_id: str,
        room_id: str,
        subscriptions: Mapping[str, SubscriptionType],
        start: Position | None,
        limit: int,
    ) -> DeliveryPage:
        """The pending or retrying deliveries of ``subscriptions`` (id -> type) among a page of the room's
        messages (newest first, from ``start``, a position this method returned): a destination's
        own record when it has one (failover hand-offs have only that), else its first record,
        which is pending. One Query of the room's index (keys and destinations only) and the
        destinations' own records by BatchGetItem."""
        partition = room_messages_key(tenant_id, room_id)
        request = self._newest_first(partition) | {"Limit": limit}
        if start is not None:
            sort_key = position_value(start, _ROOM_INDEX_SORT_KEY)
            request["ExclusiveStartKey"] = _room_index_key(tenant_id, partition, sort_key)
        response = self._client.query(**request)
        rows = [items.from_attributes(raw) for raw in response.get("Items", [])]
        wanted = list(subscriptions)
        written = {
            (d.message_id, d.subscription_id): d
            for d in (
                delivery_from_item(row)
                for row in self._batch_get(
                    [key(row["PK"], f"{_DELIVERY_PREFIX}{s}") for row in rows for s in wanted]
                )
            )
        }
        found: list[tuple[str, Delivery]] = []
        for row in rows:
            message_id = row["GSI1SK"].rpartition("#")[2]
            destinations = row.get("destinations") or []
            for subscription_id in wanted:
                record = written.get((message_id, subscription_id))
                if record is None and subscription_id in destinations:
                    kind = subscriptions[subscription_id]
                    record = Delivery(message_id, tenant_id, subscription_id, kind, DeliveryStatus.PENDING, 0)
                if record is not None and record.status in (DeliveryStatus.PENDING, DeliveryStatus.RETRYING):
                    found.append((message_id, record))
        last = response.get("LastEvaluatedKey")
        return DeliveryPage(found, (last["GSI1SK"]["S"],) if last else None)

    def record_delivered(self, deliveries: Sequence[Delivery]) -> None:
        """Write 'delivered' records in batches of 25. Unconditional on purpose: a delivered
        webhook is the truth, whatever an earlier (or a duplicate's) record said."""
        self._batch_write(
            [{"PutRequest": {"Item": items.to_attributes(delivery_to_item(d))}} for d in deliveries]
        )

    def update_delivery(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool:
        """Write a delivery's new state unless it already ended (a late duplicate never undoes
        'delivered', nor a late ack 'dead'); ``force`` overrides that (replay). With
        ``only_if_attempts_below``, only a record with fewer attempts is overwritten.
        Its ``history`` entries are appended to the record's attempt history.
        Returns whether it was written."""
        update = _update_expression(delivery)
        kwargs: dict[str, Any] = {}
        if not force:
            condition = "(attribute_not_exists(#status) OR NOT #status IN (:d, :x, :e, :c))"
            values: dict[str, Any] = {
                ":d": {"S": DeliveryStatus.DELIVERED.value},
                ":x": {"S": DeliveryStatus.DEAD.value},
                ":e": {"S": DeliveryStatus.EXPIRED.value},
                ":c": {"S": DeliveryStatus.CLEARED.value},
            }
            if only_if_attempts_below is not None:
                condition += " AND (attribute_not_exists(attempts) OR attempts < :below)"
                values[":below"] = {"N": str(only_if_attempts_below)}
            kwargs = {"ConditionExpression": condition}
            update["ExpressionAttributeNames"]["#status"] = "status"
            update["ExpressionAttributeValues"] |= values
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=key(
                    message_partition_key(delivery.tenant_id, delivery.message_id), _delivery_key(delivery)
                ),
                **update,
                **kwargs,
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

    def claim_retry(self, delivery: Delivery, claim: str, now_ms: int) -> bool:
        """Claim a retrying delivery for one retry-now: only while it is still retrying, due when
        ``delivery`` (as read) said and later than now (one made due already has nothing to
        wait for), and no other retry-now holds a claim younger than RETRY_CLAIM_MS. Of
        concurrent retry-nows on one delivery exactly one gets it."""
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=key(
                    message_partition_key(delivery.tenant_id, delivery.message_id), _delivery_key(delivery)
                ),
                UpdateExpression="SET #claim = :claim, #claimedAt = :now",
                ConditionExpression=(
                    "#status = :retrying AND nextAttemptAt = :seen AND nextAttemptAt > :nowIso"
                    " AND (attribute_not_exists(#claim) OR #claimedAt < :stale)"
                ),
                ExpressionAttributeNames={
                    "#claim": _RETRY_CLAIM,
                    "#claimedAt": _RETRY_CLAIMED_AT,
                    "#status": "status",
                },
                ExpressionAttributeValues={
                    ":claim": {"S": claim},
                    ":now": {"N": str(now_ms)},
                    ":nowIso": {"S": iso_from_ms(now_ms)},
                    ":stale": {"N": str(now_ms - RETRY_CLAIM_MS)},
                    ":retrying": {"S": DeliveryStatus.RETRYING.value},
                    ":seen": {"S": delivery.next_attempt_at or ""},
                },
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

    def move_claimed_retry(self, delivery: Delivery, claim: str) -> bool:
        """Write a claimed retry's new due time (and release the claim), only while the claim is
        this one and the delivery has not ended meanwhile."""
        update = _update_expression(delivery)
        names = update["ExpressionAttributeNames"] | {"#claim": _RETRY_CLAIM, "#claimedAt": _RETRY_CLAIMED_AT}
        removal = "#claim, #claimedAt"
        expression = update["UpdateExpression"]
        expression += f", {removal}" if " REMOVE " in expression else f" REMOVE {removal}"
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=key(
                    message_partition_key(delivery.tenant_id, delivery.message_id), _delivery_key(delivery)
                ),
                UpdateExpression=expression,
                ConditionExpression="#claim = :claim AND #status = :retrying",
                ExpressionAttributeNames=names | {"#status": "status"},
                ExpressionAttributeValues=update["ExpressionAttributeValues"]
                | {":claim": {"S": claim}, ":retrying": {"S": DeliveryStatus.RETRYING.value}},
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

    def get_message(self, tenant_id: str, message_id: str) -> TrackedMessage:
        found = list(self._query_all(message_partition_key(tenant_id, message_id)))
        message_items = [row for row in found if row["SK"] == _MESSAGE_SORT_KEY]
        if not message_items:
            raise NotFound(f"message {message_id} not found")
        # A destination's own item, once written, supersedes the first record inside the message.
        latest = {d.subscription_id: d for d in embedded_deliveries(message_items[0])}
        latest.update(
            (d.subscription_id, d)
            for d in (delivery_from_item(row) for row in found if row["SK"].startswith(_DELIVERY_PREFIX))
        )
        deliveries = tuple(sorted(latest.values(), key=lambda d: d.subscription_id))
        return TrackedMessage(message_from_item(message_items[0]), deliveries)

    def get_delivery(self, tenant_id: str, message_id: str, subscription_id: str) -> Delivery | None:
        """A destination's own record (None while only its first record, inside the message, exists)."""
        response = self._client.get_item(
            TableName=self._table_name,
            Key=key(message_partition_key(tenant_id, message_id), f"{_DELIVERY_PREFIX}{subscription_id}"),
            ConsistentRead=True,
        )
        return delivery_from_item(items.from_attributes(response["Item"])) if "Item" in response else None

    def mark_unsent(self, tenant_id: str, message_id: str, subscription_ids: Sequence[str]) -> None:
        """The outbox: these destinations' first envelopes could not be sent. The change comes to
        the outbox function through the table's stream (``outbox`` = ``unsent``), which sends them."""
        ids = {"L": [{"S": subscription_id} for subscription_id in subscription_ids]}
        self._update_outbox_mark(
            tenant_id,
            message_id,
            "SET #outbox = :unsent, #unsent = :ids",
            {":unsent": {"S": OUTBOX_UNSENT}, ":ids": ids},
        )

    def mark_sent(self, tenant_id: str, message_id: str) -> None:
        """The outbox's work for a message is done: nothing of it is left unsent (a message item
        gone meanwhile, its time to live passed, is left gone)."""
        try:
            self._update_outbox_mark(tenant_id, message_id, "REMOVE #outbox, #unsent")
        except ClientError as error:
            if not is_condition_failure(error):
                raise

    def _update_outbox_mark(
        self, tenant_id: str, message_id: str, expression: str, values: dict[str, Any] | None = None
    ) -> None:
        """Set or remove the outbox mark of a stored message item (never creates one)."""
        extra: dict[str, Any] = {"ExpressionAttributeValues": values} if values else {}
        self._client.update_item(
            TableName=self._table_name,
            Key=key(message_partition_key(tenant_id, message_id), _MESSAGE_SORT_KEY),
            UpdateExpression=expression,
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeNames={"#outbox": OUTBOX_ATTRIBUTE, "#unsent": UNSENT_ATTRIBUTE},
            **extra,
        )

    def get_messages(self, tenant_id: str, message_ids: Sequence[str]) -> dict[str, Message]:
        """Messages by id (without deliveries), in as few calls as DynamoDB allows."""
        keys = [key(message_partition_key(tenant_id, mid), _MESSAGE_SORT_KEY) for mid in message_ids]
        found = (message_from_item(item) for item in self._batch_get(keys))
        return {message.id: message for message in found}

    def list_room_messages(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]:
        """A room's messages newest first, each with its deliveries' current records: one Query
        (a few when filters skip items) and one BatchGetItem for the deliveries. A position is the
        index sort key of a page's last message."""
        partition = room_messages_key(tenant_id, room_id)
        request = self._newest_first(partition)
        if wanted.since or wanted.until:
            request["KeyConditionExpression"] += " AND GSI1SK BETWEEN :since AND :until"
            request["ExpressionAttributeValues"] |= {
                ":since": {"S": wanted.since or "0000"},
                ":until": {"S": (wanted.until or "9999") + "#~"},
            }
        filters, names = [], {}
        if wanted.event_type is not None:
            filters.append("#eventType = :eventType")
            names["#eventType"] = "eventType"
            request["ExpressionAttributeValues"][":eventType"] = {"S": wanted.event_type}
        if wanted.subscription_id is not None:
            filters.append("contains(destinations, :subscription)")
            request["ExpressionAttributeValues"][":subscription"] = {"S": wanted.subscription_id}
        if filters:
            request["FilterExpression"] = " AND ".join(filters)
        if names:
            request["ExpressionAttributeNames"] = names
        found: list[items.Item] = []
        last_key: Mapping[str, Any] | None = None
        if start is not None:
            last_key = _room_index_key(tenant_id, partition, position_value(start, _ROOM_INDEX_SORT_KEY))
        for _ in range(_MAX_LIST_ROUNDS):
            if last_key:
                request["ExclusiveStartKey"] = last_key
            response = self._client.query(**request, Limit=limit - len(found))
            found.extend(items.from_attributes(raw) for raw in response.get("Items", []))
            last_key = response.get("LastEvaluatedKey")
            if not last_key or len(found) >= limit:
                break
        return Page(self._tracked(found), (last_key["GSI1SK"]["S"],) if last_key else None)

    def _newest_first(self, partition: str) -> dict[str, Any]:
        """A Query of a room's messages in the ``ByRoom`` index, newest first."""
        return {
            "TableName": self._table_name,
            "IndexName": ROOM_INDEX,
            "ScanIndexForward": False,
            "KeyConditionExpression": "GSI1PK = :pk",
            "ExpressionAttributeValues": {":pk": {"S": partition}},
        }

    def _tracked(self, index_rows: list[items.Item]) -> list[TrackedMessage]:
        """The messages of index rows (keys, event type and destinations: what the index projects)
        with each destination's current record (its own item when written), in one BatchGetItem."""
        keys = [key(row["PK"], _MESSAGE_SORT_KEY) for row in index_rows] + [
            key(row["PK"], f"{_DELIVERY_PREFIX}{subscription_id}")
            for row in index_rows
            for subscription_id in row.get("destinations") or []
        ]
        found = self._batch_get(keys)
        stored = {row["PK"]: row for row in found if row["SK"] == _MESSAGE_SORT_KEY}
        written = {
            (d.message_id, d.subscription_id): d
            for d in (delivery_from_item(row) for row in found if row["SK"] != _MESSAGE_SORT_KEY)
        }
        tracked = []
        # A message whose item expired between the Query and the read is left out.
        for row in (stored[r["PK"]] for r in index_rows if r["PK"] in stored):
            first = {d.subscription_id: d for d in embedded_deliveries(row)}
            current = [written.get((row["id"], s), first.get(s)) for s in sorted(first)]
            tracked.append(TrackedMessage(message_from_item(row), tuple(d for d in current if d is not None)))
        return tracked
