"""Messages and their delivery records in DynamoDB (item shapes: roomcast.messages.items): the
store services see as ``MessageRecords``. A message with its first records is one item; each later
change of a destination its own record, written by the store it holds (roomcast.messages.deliveries);
a room's messages are read through its index (roomcast.messages.room_index). What a publish records
of its sends is roomcast.publishing's, a scheduled message's release roomcast.deliver_at's, and an
ordered message's place in its key's line roomcast.ordering's (handed in as ``places``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.catalog import SubscriptionType
from roomcast.messages.deliveries import DeliveryRecords
from roomcast.messages.first_tries import FIRST_TRIES_SORT_KEY, current_records, first_tries_key
from roomcast.messages.items import (
    DELIVERY_PREFIX,
    MESSAGE_SORT_KEY,
    embedded_deliveries,
    message_from_item,
    message_partition_key,
    stored_message_item,
)
from roomcast.messages.model import (
    OPEN_STATUSES,
    Delivery,
    DeliveryStatus,
    Message,
    MessageFilter,
    OwedFilter,
    TrackedMessage,
    first_record,
)
from roomcast.messages.ports import DeliveryPage, MessageExists, TransactionNotApplied
from roomcast.messages.room_index import RoomIndex
from roomcast.messages.transactions import Stored, transaction_groups
from roomcast.platform import (
    BATCH_WRITE_MAX_ITEMS,
    NotFound,
    Page,
    Position,
    TableAccess,
    is_condition_failure,
    items,
    key,
)

# Writes of one batch publish running at once (PutItems of keyed messages, BatchWriteItems).
_PARALLEL_WRITES: Final = 8
Pair = tuple[Message, Sequence[Delivery]]


def _in_parallel[T](work: Callable[[T], None], inputs: Sequence[T]) -> None:
    if len(inputs) <= 1:
        for one in inputs:
            work(one)
        return
    with ThreadPoolExecutor(max_workers=min(_PARALLEL_WRITES, len(inputs))) as pool:
        list(pool.map(work, inputs))


class MessageTable(TableAccess):
    @cached_property
    def records(self) -> DeliveryRecords:
        """The destinations' own records, on the same table."""
        return DeliveryRecords.sharing(self)

    def record_first_tries(self, deliveries: Sequence[Delivery]) -> None:
        self.records.record_first_tries(deliveries)

    def update_delivery(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool:
        return self.records.update_delivery(
            delivery, force=force, only_if_attempts_below=only_if_attempts_below
        )

    def update_deliveries(self, deliveries: Sequence[Delivery]) -> dict[str, DeliveryStatus]:
        return self.records.update_deliveries(deliveries)

    def claim_retry(self, delivery: Delivery, claim: str, now_ms: int) -> bool:
        return self.records.claim_retry(delivery, claim, now_ms)

    def move_claimed_retry(self, delivery: Delivery, claim: str) -> bool:
        return self.records.move_claimed_retry(delivery, claim)

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
        batch: Sequence[Pair],
        *,
        if_new: bool = False,
        left_to_outbox: bool = False,
        places: Callable[[Message], Sequence[Mapping[str, Any]]] | None = None,
    ) -> dict[str, Exception]:
        """Store several messages, each as ``put_message`` does, and return what failed by message
        id (``MessageExists`` for an ``if_new`` message already stored, or the error). Without
        ``if_new``: BatchWriteItem, 25 messages a call; with it: one conditional PutItem each
        (BatchWriteItem takes no conditions). A message with ordered destinations is written with
        its ``places`` (its items in its keys' lines, roomcast.ordering) in one transaction, with
        as many others as one takes when none is conditional (roomcast.messages.transactions).
        Calls run in parallel."""
        failed: dict[str, Exception] = {}
        ordered = [(pair, places(pair[0])) for pair in batch if pair[0].ordered_to and places is not None]
        plain = [pair for pair in batch if not (pair[0].ordered_to and places is not None)]

        def put_one(one: Stored) -> None:
            (message, deliveries), _ = one
            try:
                if message.ordered_to and places is not None:
                    self._put_together([one], left_to_outbox=left_to_outbox, if_new=if_new)
                else:
                    self.put_message(message, deliveries, if_new=True, left_to_outbox=left_to_outbox)
            except Exception as error:
                failed[message.id] = error

        def put_chunk(chunk: Sequence[Pair]) -> None:
            stored = [stored_message_item(m, d, left_to_outbox=left_to_outbox) for m, d in chunk]
            try:
                self._batch_write([{"PutRequest": {"Item": items.to_attributes(i)}} for i in stored])
            except Exception as error:
                failed.update((message.id, error) for message, _ in chunk)

        def put_group(group: Sequence[Stored]) -> None:
            try:
                self._put_together(group, left_to_outbox=left_to_outbox)
            except Exception:  # told apart one by one: each message answers for itself
                for one in group:
                    put_one(one)

        if if_new:
            _in_parallel(put_one, [*ordered, *((pair, ()) for pair in plain)])
        else:
            _in_parallel(
                put_chunk,
                [plain[i : i + BATCH_WRITE_MAX_ITEMS] for i in range(0, len(plain), BATCH_WRITE_MAX_ITEMS)],
            )
            _in_parallel(put_group, transaction_groups(ordered))
        return failed

    def _put_together(self, group: Sequence[Stored], *, left_to_outbox: bool, if_new: bool = False) -> None:
        """Messages with ordered destinations, each with its places in its keys' lines, in one
        transaction: a message is never stored without its places, nor a place without its message
        (docs/decisions/0041-ordering-keys.md). ``if_new`` (a lone message): MessageExists when
        stored. Cancelled otherwise (a conflict, throttling): TransactionNotApplied, none stored."""
        writes: list[dict[str, Any]] = []
        for (message, deliveries), its_places in group:
            item = stored_message_item(message, deliveries, left_to_outbox=left_to_outbox)
            put: dict[str, Any] = {"TableName": self._table_name, "Item": items.to_attributes(item)}
            if if_new:
                put["ConditionExpression"] = "attribute_not_exists(PK)"
            writes.append({"Put": put})
            writes += [
                {"Put": {"TableName": self._table_name, "Item": items.to_attributes(dict(place))}}
                for place in its_places
            ]
        failed = self._transact(writes)
        if failed is not None:
            cancelled = TransactionNotApplied(f"storing {len(group)} messages was cancelled; none was")
            raise MessageExists(group[0][0][0].id, None) if failed == 0 else cancelled

    def get_message(self, tenant_id: str, message_id: str) -> TrackedMessage:
        found = list(self._query_all(message_partition_key(tenant_id, message_id)))
        message_items = [row for row in found if row["SK"] == MESSAGE_SORT_KEY]
        if not message_items:
            raise NotFound(f"message {message_id} not found")
        # A destination's own item (or its FIRST entry), once written, supersedes the first record
        # inside the message.
        latest = {d.subscription_id: d for d in embedded_deliveries(message_items[0])}
        latest.update((subscription_id, d) for (_, subscription_id), d in current_records(found).items())
        deliveries = tuple(sorted(latest.values(), key=lambda d: d.subscription_id))
        return TrackedMessage(message_from_item(message_items[0]), deliveries)

    def get_delivery(self, tenant_id: str, message_id: str, subscription_id: str) -> Delivery | None:
        """A destination's own record, or its delivered first try in the message's FIRST item
        (None while only its first record, inside the message, exists): one BatchGetItem."""
        found = self._batch_get(
            [
                key(message_partition_key(tenant_id, message_id), f"{DELIVERY_PREFIX}{subscription_id}"),
                first_tries_key(tenant_id, message_id),
            ]
        )
        return current_records(found).get((message_id, subscription_id))

    def open_deliveries(
        self, tenant_id: str, owed: OwedFilter, start: Position | None, limit: int
    ) -> DeliveryPage:
        """The pending or retrying deliveries ``owed`` asks for among a page of its room's messages
        (newest first, from ``start``, a position this method returned): a destination's own record
        when it has one (failover hand-offs have only that), else its first record, which is
        pending. The index's page, then one BatchGetItem of the messages and the destinations' own
        records."""
        page = self._room_index.page(tenant_id, owed.room_id, limit, start, until=owed.published_until)
        wanted = list(owed.subscriptions)
        # Only a PUSH destination's first try can be a FIRST entry.
        pushed = SubscriptionType.PUSH in owed.subscriptions.values()
        message_keys = (MESSAGE_SORT_KEY, FIRST_TRIES_SORT_KEY) if pushed else (MESSAGE_SORT_KEY,)
        found_items = self._batch_get(
            [key(row["PK"], sk) for row in page.rows for sk in message_keys]
            + [key(row["PK"], f"{DELIVERY_PREFIX}{s}") for row in page.rows for s in wanted]
        )
        stored = {row["id"]: message_from_item(row) for row in found_items if row["SK"] == MESSAGE_SORT_KEY}
        written = current_records(found_items)
        found: list[tuple[str, Delivery]] = []
        for row in page.rows:
            message_id = str(row["GSI1SK"]).rpartition("#")[2]
            for subscription_id in wanted:
                record = written.get((message_id, subscription_id))
                message = stored.get(message_id)
                if record is None and message is not None and subscription_id in message.destinations:
                    record = first_record(message, subscription_id, owed.subscriptions[subscription_id])
                if record is not None and record.status in OPEN_STATUSES:
                    found.append((message_id, record))
        return DeliveryPage(found, page.next_position, stored)

    def get_messages(self, tenant_id: str, message_ids: Sequence[str]) -> dict[str, Message]:
        """Messages by id (without deliveries), in as few calls as DynamoDB allows."""
        keys = [key(message_partition_key(tenant_id, mid), MESSAGE_SORT_KEY) for mid in message_ids]
        found = (message_from_item(item) for item in self._batch_get(keys))
        return {message.id: message for message in found}

    def list_room_messages(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]:
        """A room's messages newest first, each with its deliveries' current records: the index's
        page (roomcast.messages.room_index: time range and event type) and two BatchGetItems (the
        messages, then their destinations' records). Messages not routed to ``wanted``'s
        subscription are left out of the page (which may then be short)."""
        page = self._room_index.page(
            tenant_id,
            room_id,
            limit,
            start,
            since=wanted.since,
            until=wanted.until,
            event_type=wanted.event_type,
        )
        tracked = self.tracked(page.rows)
        if wanted.subscription_id is not None:
            tracked = [t for t in tracked if wanted.subscription_id in t.message.destinations]
        return Page(tracked, page.next_position)

    @cached_property
    def _room_index(self) -> RoomIndex:
        return RoomIndex.sharing(self)

    def tracked(self, index_rows: list[items.Item]) -> list[TrackedMessage]:
        """The messages of index rows, each with every destination's current record (its own item
        when written): the messages, then the records their destinations name."""
        found = self._batch_get([key(row["PK"], MESSAGE_SORT_KEY) for row in index_rows])
        stored = {row["PK"]: row for row in found}
        records = self._batch_get(
            [
                key(pk, f"{DELIVERY_PREFIX}{subscription_id}")
                for pk, row in stored.items()
                for subscription_id in row.get("destinations") or []
            ]
            + [key(pk, FIRST_TRIES_SORT_KEY) for pk, row in stored.items() if row.get("destinations")]
        )
        written = current_records(records)
        tracked = []
        # A message whose item expired between the Query and the read is left out.
        for row in (stored[r["PK"]] for r in index_rows if r["PK"] in stored):
            first = {d.subscription_id: d for d in embedded_deliveries(row)}
            current = [written.get((row["id"], s), first.get(s)) for s in sorted(first)]
            tracked.append(TrackedMessage(message_from_item(row), tuple(d for d in current if d is not None)))
        return tracked
