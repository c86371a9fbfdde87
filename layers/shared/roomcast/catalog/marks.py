"""Marks on a subscription that its writers other than a PATCH set: a PUSH endpoint's failing
streak and its slow mark (the push function) and the Clear All watermark (docs/decisions/0023-write-units.md,
0028-every-delivery-ends.md). Each is one UpdateItem of its own attributes, then the room's
version tells readers."""

from __future__ import annotations

from botocore.exceptions import ClientError

from roomcast.catalog.keys import subscription_key, version_bump
from roomcast.catalog.model import Subscription
from roomcast.platform import Key, NotFound, TableAccess, is_condition_failure


class SubscriptionMarks(TableAccess):
    def _tell_readers(self, subscription: Subscription) -> None:
        """Bump the room's subscriptions version after a change outside a transaction (the push
        function reads subscriptions through it too); a room gone meanwhile needs none."""
        bump = version_bump(self._table_name, subscription.tenant_id, subscription.room_id)["Update"]
        try:
            self._client.update_item(**bump)
        except ClientError as error:
            if not is_condition_failure(error):
                raise

    def mark_failing(self, subscription: Subscription, now_ms: int) -> int:
        """Start the subscription's failing streak unless one is running; returns its start.
        Touches neither ``updatedAt`` nor anything else (a PATCH meanwhile still applies). Rare
        (docs/decisions/0023-write-units.md): the room's version is bumped after it, in a write of
        its own rather than a transaction of twice the write units."""
        return self._start(subscription, "failingSinceMs", now_ms)

    def clear_failing(self, subscription: Subscription) -> None:
        """A success ends the failing streak, and its warning (the room's version tells readers)."""
        self._end(subscription, "failingSinceMs", "failingWarnedAtMs")

    def warn_failing(self, subscription: Subscription, now_ms: int) -> bool:
        """Mark the failing streak warned of (roomcast.catalog.recovery); whether this call did it
        (one warning per streak, whichever container gets there first)."""
        return self._start(subscription, "failingWarnedAtMs", now_ms) == now_ms

    def claim_probe(self, subscription: Subscription, chain_ms: int, attempt: int) -> bool:
        """Take probe ``attempt`` of the recovery that began ``chain_ms``: only while the
        subscription is disabled in that recovery and the probe before was the last taken, so
        that at most one probe is in flight (a task handed out twice probes once)."""
        taken = self._update_if(
            _key(subscription),
            UpdateExpression="SET probeAttempts = :attempt",
            ConditionExpression="#status = :disabled AND probingSinceMs = :chain"
            " AND (probeAttempts = :before OR (attribute_not_exists(probeAttempts) AND :before = :none))",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":attempt": {"N": str(attempt + 1)},
                ":before": {"N": str(attempt)},
                ":none": {"N": "0"},
                ":disabled": {"S": "disabled"},
                ":chain": {"N": str(chain_ms)},
            },
        )
        return taken is not None

    def mark_slow(self, subscription: Subscription, now_ms: int) -> int:
        """The endpoint answers slowly: its deliveries move to the slow lane (roomcast.catalog.lanes).
        Returns since when it is marked; written like a failing streak, once when it starts."""
        return self._start(subscription, "slowSinceMs", now_ms)

    def clear_slow(self, subscription: Subscription) -> None:
        """The endpoint answered in time again: back to the fast lane."""
        self._end(subscription, "slowSinceMs")

    def _start(self, subscription: Subscription, attribute: str, now_ms: int) -> int:
        """Set a mark's start unless it is set; its start, then the room's version tells readers."""
        response = self._update_if(
            _key(subscription),
            UpdateExpression="SET #mark = if_not_exists(#mark, :now)",
            ConditionExpression="attribute_exists(SK)",
            ExpressionAttributeNames={"#mark": attribute},
            ExpressionAttributeValues={":now": {"N": str(now_ms)}},
            ReturnValues="ALL_NEW",  # UPDATED_NEW is empty when the mark was already set
        )
        if response is None:  # deleted meanwhile: nothing to track
            return now_ms
        self._tell_readers(subscription)
        return int(response["Attributes"][attribute]["N"])

    def _end(self, subscription: Subscription, *attributes: str) -> None:
        names = {f"#mark{index}": attribute for index, attribute in enumerate(attributes)}
        ended = self._update_if(
            _key(subscription),
            UpdateExpression="REMOVE " + ", ".join(names),
            ConditionExpression="attribute_exists(SK)",
            ExpressionAttributeNames=names,
        )
        if ended is not None:  # not deleted meanwhile
            self._tell_readers(subscription)

    def raise_cleared_watermark(
        self, subscription: Subscription, cleared_before_ms: int, updated_at: str
    ) -> None:
        """Clear All: every envelope queued up to ``cleared_before_ms`` ends cleared. Only ever
        raised, so that racing Clear Alls all succeed (the latest mark holds); ``updatedAt`` moves
        on, so that a PATCH of a copy read before it is refused instead of writing the mark back.
        NotFound if the subscription is gone. The room's version tells readers (the push function)."""
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=_key(subscription),
                UpdateExpression="SET clearedBeforeMs = :mark, updatedAt = :updated",
                ConditionExpression="attribute_exists(SK)"
                " AND (attribute_not_exists(clearedBeforeMs) OR clearedBeforeMs < :mark)",
                ExpressionAttributeValues={
                    ":mark": {"N": str(cleared_before_ms)},
                    ":updated": {"S": updated_at},
                },
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            if not error.response.get("Item"):
                raise NotFound(
                    f"subscription {subscription.id} not found in room {subscription.room_id}"
                ) from error
            return  # a later mark is there already: it covers this one
        self._tell_readers(subscription)


def _key(subscription: Subscription) -> Key:
    return subscription_key(subscription.tenant_id, subscription.room_id, subscription.id)
