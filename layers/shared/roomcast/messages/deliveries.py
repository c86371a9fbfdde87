"""A destination's own delivery record (``DLV#<subscriptionId>`` under its message): every change
after its first, written conditionally so that a late duplicate never undoes an ended record."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from roomcast.messages import first_tries
from roomcast.messages.items import (
    delivery_key,
    delivery_to_item,
    message_partition_key,
    update_expression,
)
from roomcast.messages.model import Delivery, DeliveryStatus
from roomcast.platform import Key, TableAccess, iso_from_ms, items, key

# A retry-now claims a retrying delivery before it sends its envelope (the attributes, on the
# delivery's own item), so concurrent retry-nows send one envelope and count it once; a claim
# left by a retry-now that died is taken over after this long.
_RETRY_CLAIM: Final = "retryClaim"
_RETRY_CLAIMED_AT: Final = "retryClaimedAtMs"
RETRY_CLAIM_MS: Final = 30_000


class DeliveryRecords(TableAccess):
    def record_first_tries(self, deliveries: Sequence[Delivery]) -> None:
        """Write a push batch's first tries' records: 'delivered' unconditionally, on purpose (a
        delivered webhook is the truth, whatever an earlier or a duplicate's record said),
        'retrying' as ``update_delivery`` does (never over a record that ended). Plain first tries
        of one message, two or more, are entries of its ``FIRST`` item (one update, one write
        unit: roomcast.messages.first_tries); every other record is its own item, delivered ones put in
        batches of 25."""
        # One write per record: BatchWriteItem refuses a batch that writes one item twice.
        by_message: dict[tuple[str, str], list[tuple[Delivery, first_tries.Entry]]] = {}
        own: list[Delivery] = []
        for delivery in first_tries.one_per_destination(deliveries):
            compact = first_tries.entry(delivery)
            if compact is None:
                own.append(delivery)
            else:
                message = (delivery.tenant_id, delivery.message_id)
                by_message.setdefault(message, []).append((delivery, compact))
        grouped = [group for group in by_message.values() if len(group) > 1]
        own += [d for group in by_message.values() if len(group) == 1 for d, _ in group]
        if not grouped:
            self._write_own(own)
            return
        with ThreadPoolExecutor(max_workers=min(len(grouped) + 1, 10)) as pool:
            writing = pool.submit(self._write_own, own)
            not_added = [d for refused in pool.map(self._add_first_tries, grouped) for d in refused]
            writing.result()
        self._write_own(not_added)  # a FIRST item that is full: rare, a message of many destinations

    def _write_own(self, deliveries: Sequence[Delivery]) -> None:
        """First tries' records as their destinations' own items, side by side: the delivered ones
        put in batches of 25, the others updated one by one under their condition, and only over a
        record of fewer attempts: a batch writes them at its end, and a retry of one may have run
        and written its own record before (overwritten, its next retry would be called superseded)."""
        delivered = [d for d in deliveries if d.status is DeliveryStatus.DELIVERED]
        others = [d for d in deliveries if d.status is not DeliveryStatus.DELIVERED]
        if not others:
            self._put_records(delivered)
            return
        with ThreadPoolExecutor(max_workers=min(len(others) + 1, 10)) as pool:
            putting = pool.submit(self._put_records, delivered)
            list(pool.map(lambda d: self.update_delivery(d, only_if_attempts_below=d.attempts), others))
            putting.result()

    def _put_records(self, deliveries: Sequence[Delivery]) -> None:
        self._batch_write(
            [{"PutRequest": {"Item": items.to_attributes(delivery_to_item(d))}} for d in deliveries]
        )

    def _add_first_tries(self, group: Sequence[tuple[Delivery, first_tries.Entry]]) -> list[Delivery]:
        """One message's first tries added to its ``FIRST`` item: [] when added, else the records
        (the item would hold more than first_tries.MAX_ENTRIES)."""
        some = group[0][0]
        item_key = first_tries.first_tries_key(some.tenant_id, some.message_id)
        added = self._update_if(item_key, **first_tries.update_request([text for _, text in group], some))
        return [] if added is not None else [d for d, _ in group]

    def update_delivery(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool:
        """Write a delivery's new state unless it already ended (a late duplicate never undoes
        'delivered', nor a late ack 'dead'); ``force`` overrides that (replay). With
        ``only_if_attempts_below``, only a record with fewer attempts is overwritten.
        Its ``history`` entries are appended to the record's attempt history.
        Returns whether it was written."""
        return self._refusal(delivery, force=force, only_if_attempts_below=only_if_attempts_below) is None

    def _refusal(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> str | None:
        """``update_delivery``'s write: None when written, else the status the record has (read
        with the refusal itself, so it is the one that refused the write)."""
        update = update_expression(delivery)
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
        refused = self._update_or_refusal(_key(delivery), **update, **kwargs)
        return None if refused is None else str(refused.get("status", ""))

    def update_deliveries(self, deliveries: Sequence[Delivery]) -> dict[str, DeliveryStatus]:
        """``update_delivery`` of each (an ack's records), side by side: one wait for all, one
        write unit each (a TransactWriteItems would bill two; docs/decisions/0026-pull-ack-waits.md).
        A record of a first attempt is usually the destination's first record of its own: the
        first attempts' records are put in one call where none exists yet (amendment 5), and
        updated as any other where one does (amendment 2). Returns the records that had already
        ended, which were left as they were: the status each ended with, by message id."""
        if not deliveries:
            return {}
        new: list[Delivery] = []  # first attempts, one per record: the batch may not write one twice
        second_receipts: list[Delivery] = []
        seen: set[tuple[str, str]] = set()
        for delivery in deliveries:
            if delivery.attempts == 1:
                record = (delivery.message_id, delivery.subscription_id)
                (second_receipts if record in seen else new).append(delivery)
                seen.add(record)
        later = [d for d in deliveries if d.attempts != 1]
        new_items = [items.to_attributes(delivery_to_item(d)) for d in new]
        with ThreadPoolExecutor(max_workers=min(len(deliveries), 10)) as pool:
            inserting = pool.submit(self._insert_each, new_items)
            refusals = list(zip(later, pool.map(self._refusal, later), strict=True))
            # Then what the batch did not put, and a second receipt of a record after its first.
            codes = zip(new, inserting.result(), strict=True)
            not_put: list[tuple[Delivery, str | None]] = [(d, code) for d, code in codes if code is not None]
            not_put += [(d, None) for d in second_receipts]
            written = pool.map(lambda pair: self._after_insert(*pair), not_put)
            refusals += zip((d for d, _ in not_put), written, strict=True)
        return {d.message_id: DeliveryStatus(r) for d, r in refusals if r}

    def _after_insert(self, delivery: Delivery, code: str | None) -> str | None:
        """A first attempt's record the batch did not put: updated when the record exists (the
        condition decides, amendment 2); written on its own, a put retried as any single write, when
        DynamoDB did not run its statement (throttling) or it was a second receipt of one record."""
        return self._refusal(delivery) if code == "DuplicateItem" else self._write_delivery(delivery)

    def _write_delivery(self, delivery: Delivery) -> str | None:
        if delivery.attempts == 1 and self._create_delivery(delivery):
            return None
        return self._refusal(delivery)

    def _create_delivery(self, delivery: Delivery) -> bool:
        """Put the record unless the destination has one already (False then: nothing written).
        On a new record a put and ``update_delivery`` write the same item, but the put is the
        emulator's cheaper request (``_put_new``)."""
        return self._put_new(delivery_to_item(delivery))

    def claim_retry(self, delivery: Delivery, claim: str, now_ms: int) -> bool:
        """Claim a retrying delivery for one retry-now: only while it is still retrying, due when
        ``delivery`` (as read) said and later than now (one made due already has nothing to
        wait for), and no other retry-now holds a claim younger than RETRY_CLAIM_MS. Of
        concurrent retry-nows on one delivery exactly one gets it. A first try's record read from
        its message's ``FIRST`` entry has no item to hold the claim: it is put first, as read (only
        where the destination has no item), and claimed there."""
        if self._claim(delivery, claim, now_ms):
            return True
        put_as_read = delivery.attempts == 1 and self._create_delivery(delivery)
        return put_as_read and self._claim(delivery, claim, now_ms)

    def _claim(self, delivery: Delivery, claim: str, now_ms: int) -> bool:
        claimed = self._update_if(
            _key(delivery),
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
        return claimed is not None

    def move_claimed_retry(self, delivery: Delivery, claim: str) -> bool:
        """Write a claimed retry's new due time (and release the claim), only while the claim is
        this one and the delivery has not ended meanwhile."""
        update = update_expression(delivery)
        names = update["ExpressionAttributeNames"] | {"#claim": _RETRY_CLAIM, "#claimedAt": _RETRY_CLAIMED_AT}
        removal = "#claim, #claimedAt"
        expression = update["UpdateExpression"]
        expression += f", {removal}" if " REMOVE " in expression else f" REMOVE {removal}"
        moved = self._update_if(
            _key(delivery),
            UpdateExpression=expression,
            ConditionExpression="#claim = :claim AND #status = :retrying",
            ExpressionAttributeNames=names | {"#status": "status"},
            ExpressionAttributeValues=update["ExpressionAttributeValues"]
            | {":claim": {"S": claim}, ":retrying": {"S": DeliveryStatus.RETRYING.value}},
        )
        return moved is not None


def _key(delivery: Delivery) -> Key:
    return key(message_partition_key(delivery.tenant_id, delivery.message_id), delivery_key(delivery))
