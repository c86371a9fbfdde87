"""Messages and their delivery records in DynamoDB (item shapes: roomcast.messages.items): the
store services see as ``MessageRecords``. A message with its first records is one item; each later
change of a destination its own record (roomcast.messages.deliveries); what a publish records of
its sends, roomcast.publishing.marks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.catalog.model import SubscriptionType
from roomcast.deliver_at.marks import ScheduleMarks
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
    Message,
    MessageFilter,
    OwedFilter,
    TrackedMessage,
    first_record,
)
from roomcast.messages.room_index import RoomIndex, ScheduledIndex
from roomcast.ordering.numbers import KeyNumbers
from roomcast.ordering.store import waiting_items
from roomcast.platform import items
from roomcast.platform.errors import NotFound
from roomcast.platform.pages import Page, Position
from roomcast.platform.table import BATCH_WRITE_MAX_ITEMS, is_condition_failure, key
from roomcast.publishing.marks import PublishMarks

# Writes of one batch publish running at once (PutItems of keyed messages, BatchWriteItems).
_PARALLEL_WRITES: Final = 8


class MessageExists(RuntimeError):
    """A message with this id is already stored (a publish retried under its Idempotency-Key);
    ``stored`` is that message when DynamoDB returned it with the refusal."""

    def __init__(self, message_id: str, stored: Message | None = None) -> None:
        super().__init__(message_id)
        self.stored = stored


@dataclass(frozen=True)
class DeliveryPage:
    """Open deliveries found in a page of a room's messages (message id, record), and the position
    of the next page (None at the end)."""

    found: list[tuple[str, Delivery]]
    next_position: Position | None
    messages: dict[str, Message] = field(default_factory=dict)  # those read on the way, by id


def _in_parallel[T](work: Callable[[T], None], inputs: Sequence[T]) -> None:
    if len(inputs) <= 1:
        for one in inputs:
            work(one)
        return
    with ThreadPoolExecutor(max_workers=min(_PARALLEL_WRITES, len(inputs))) as pool:
        list(pool.map(work, inputs))


class MessageStore(DeliveryRecords, PublishMarks, ScheduleMarks, KeyNumbers):
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
                if pair[0].ordered_to:
                    self._put_ordered(*pair, if_new=if_new, left_to_outbox=left_to_outbox)
                else:
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
            ordered = [pair for pair in batch if pair[0].ordered_to]
            plain = [pair for pair in batch if not pair[0].ordered_to]
            chunks = [
                plain[i : i + BATCH_WRITE_MAX_ITEMS] for i in range(0, len(plain), BATCH_WRITE_MAX_ITEMS)
            ]
            _in_parallel(put_chunk, chunks)
            _in_parallel(put_one, ordered)
        return failed

    def _put_ordered(
        self, message: Message, deliveries: Sequence[Delivery], *, if_new: bool, left_to_outbox: bool
    ) -> None:
        """A message with ordered destinations, stored with its place in each one's key line in
        one transaction: a message is never stored without its places, nor a place without its
        message (docs/decisions/0041-ordering-keys.md). ``if_new``: MessageExists when stored."""
        item = stored_message_item(message, deliveries, left_to_outbox=left_to_outbox)
        put: dict[str, Any] = {"TableName": self._table_name, "Item": items.to_attributes(item)}
        if if_new:
            put["ConditionExpression"] = "attribute_not_exists(PK)"
        places = [
            {"Put": {"TableName": self._table_name, "Item": items.to_attributes(place)}}
            for place in waiting_items(message)
        ]
        if self._transact([{"Put": put}, *places]) == 0:
            raise MessageExists(message.id, None)

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
        tracked = self._tracked(page.rows)
        if wanted.subscription_id is not None:
            tracked = [t for t in tracked if wanted.subscription_id in t.message.destinations]
        return Page(tracked, page.next_position)

    def list_scheduled(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[TrackedMessage]:
        """A room's scheduled messages (not released, not cancelled), soonest deliverAt first:
        the ``Scheduled`` index's page, then the messages and their records as a list reads them."""
        page = self._scheduled_index.page(tenant_id, room_id, limit, start)
        # One released or cancelled between the index's read and the messages' is left out.
        tracked = [t for t in self._tracked(page.rows) if t.message.scheduled]
        return Page(tracked, page.next_position)

    @cached_property
    def _room_index(self) -> RoomIndex:
        return RoomIndex.sharing(self)

    @cached_property
    def _scheduled_index(self) -> ScheduledIndex:
        return ScheduledIndex.sharing(self)

    def _tracked(self, index_rows: list[items.Item]) -> list[TrackedMessage]:
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
