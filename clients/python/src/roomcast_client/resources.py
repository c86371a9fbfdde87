"""Every API operation, written once: each method builds a ``Call`` that the client's executor
(sync or async) runs. Request fields may be given by the API's camelCase names or in snake_case."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from roomcast_client._core import (
    Call,
    query,
    read_list,
    read_model,
    read_nothing,
    read_page,
    segment,
    wire_fields,
)
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.models import (
    AckResult,
    ApiKey,
    Attempt,
    ClearResult,
    CreatedApiKey,
    DeadLetter,
    DeliveryItem,
    ExtendResult,
    MessageStatus,
    NackResult,
    Page,
    PublishBatchResult,
    PublishResult,
    PulledMessage,
    PurgeResult,
    ReplayResult,
    RetryResult,
    Room,
    RotatedSecret,
    SchedulePreview,
    Subscription,
    SubscriptionCreated,
)

# A publish repeated with the same Idempotency-Key answers the first message: its retries are safe.
# 409 is that key's first request still in progress; it is retried like a 503.
_KEYED_PUBLISH_RETRYABLE = frozenset({409})

Receipts = TypeVar("Receipts", AckResult, NackResult, ExtendResult)


def new_idempotency_key() -> str:
    """A fresh key for one publish (the API takes 1-128 letters, digits, '.', '_', ':' or '-')."""
    return f"sdk-{uuid.uuid4().hex}"


def _room(room_id: str) -> str:
    return f"/rooms/{segment(room_id)}"


def _subscription(room_id: str, subscription_id: str) -> str:
    return f"{_room(room_id)}/subscriptions/{segment(subscription_id)}"


def _patch_subscription(room_id: str, subscription_id: str, fields: Mapping[str, Any]) -> Call[Subscription]:
    return Call(
        "PATCH", _subscription(room_id, subscription_id), read_model(Subscription), json=wire_fields(fields)
    )


class Rooms(Resource[E]):
    @operation
    def create(self, /, **fields: Any) -> Call[Room]:
        """Create a room (``name`` and the room's delivery policy fields)."""
        return Call("POST", "/rooms", read_model(Room), json=wire_fields(fields), retry_safe=False)

    @operation
    def list(self, *, limit: int | None = None, cursor: str | None = None) -> Call[Page[Room]]:
        """One page of the tenant's rooms."""
        return Call("GET", "/rooms", read_page(Room, "rooms"), params=query(limit=limit, cursor=cursor))

    iter = paginated(list.build)

    @operation
    def get(self, room_id: str) -> Call[Room]:
        return Call("GET", _room(room_id), read_model(Room))

    @operation
    def update(self, /, room_id: str, **fields: Any) -> Call[Room]:
        """Change the given fields (None resets a nullable one)."""
        return Call("PATCH", _room(room_id), read_model(Room), json=wire_fields(fields))

    @operation
    def delete(self, room_id: str) -> Call[None]:
        return Call("DELETE", _room(room_id), read_nothing)


class Subscriptions(Resource[E]):
    @operation
    def create(self, /, room_id: str, **fields: Any) -> Call[SubscriptionCreated]:
        """Subscribe to a room: PUSH with ``push_url`` (the default when one is given), or
        ``type="PULL"``. A PUSH subscription's answer carries its signing secret, shown only here."""
        body = wire_fields(fields)
        body.setdefault("type", "PUSH" if "pushUrl" in body else "PULL")
        return Call(
            "POST",
            f"{_room(room_id)}/subscriptions",
            read_model(SubscriptionCreated),
            json=body,
            retry_safe=False,
        )

    @operation
    def list(
        self, room_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[Subscription]]:
        return Call(
            "GET",
            f"{_room(room_id)}/subscriptions",
            read_page(Subscription, "subscriptions"),
            params=query(limit=limit, cursor=cursor),
        )

    iter = paginated(list.build)

    @operation
    def get(self, room_id: str, subscription_id: str) -> Call[Subscription]:
        return Call("GET", _subscription(room_id, subscription_id), read_model(Subscription))

    @operation
    def update(self, /, room_id: str, subscription_id: str, **fields: Any) -> Call[Subscription]:
        """Change the given fields (None resets a nullable one)."""
        return _patch_subscription(room_id, subscription_id, fields)

    @operation
    def pause(self, room_id: str, subscription_id: str) -> Call[Subscription]:
        """Stop deliveries (they wait, and go on at resume)."""
        return _patch_subscription(room_id, subscription_id, {"status": "paused"})

    @operation
    def resume(self, room_id: str, subscription_id: str) -> Call[Subscription]:
        """Make a paused or disabled subscription active again."""
        return _patch_subscription(room_id, subscription_id, {"status": "active"})

    @operation
    def delete(self, room_id: str, subscription_id: str) -> Call[None]:
        return Call("DELETE", _subscription(room_id, subscription_id), read_nothing)

    @operation
    def rotate_secret(self, room_id: str, subscription_id: str) -> Call[RotatedSecret]:
        """A new signing secret for a PUSH subscription; the previous ones keep signing a while."""
        return Call(
            "POST",
            f"{_subscription(room_id, subscription_id)}/rotate-secret",
            read_model(RotatedSecret),
            retry_safe=False,
        )

    @operation
    def schedule(self, room_id: str, subscription_id: str) -> Call[SchedulePreview]:
        """When each delivery attempt would happen under the subscription's effective policy."""
        return Call("GET", f"{_subscription(room_id, subscription_id)}/schedule", read_model(SchedulePreview))


class Messages(Resource[E]):
    @operation
    def publish(
        self,
        /,
        room_id: str,
        body: Any,
        *,
        event_type: str | None = None,
        event_version: str | None = None,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> Call[PublishResult]:
        """Publish a message. With ``event_type``, ``body`` is the payload (``event_version``
        defaults to "1"; ``correlation_id``, ``destinations`` go in ``fields``); without it,
        ``body`` is the whole message (``{"eventType", "eventVersion", "payload", …}``).

        The request carries an ``Idempotency-Key`` (``idempotency_key``, or a fresh one), so a
        retry after a lost answer publishes nothing twice and answers the same message."""
        if event_type is None:
            if not isinstance(body, Mapping):
                raise TypeError("publish: give event_type=..., or a whole message as body")
            message = wire_fields({**body, **fields})
        else:
            message = {
                "eventType": event_type,
                "eventVersion": event_version or "1",
                "payload": body,
                **wire_fields(fields),
            }
        return Call(
            "POST",
            f"{_room(room_id)}/messages",
            read_model(PublishResult),
            json=message,
            headers={"Idempotency-Key": idempotency_key or new_idempotency_key()},
            extra_retryable_statuses=_KEYED_PUBLISH_RETRYABLE,
        )

    @operation
    def publish_batch(self, room_id: str, messages: Sequence[Mapping[str, Any]]) -> Call[PublishBatchResult]:
        """Publish up to 100 messages in one request; check ``failed_count`` or each result.
        A message without an ``idempotencyKey`` gets a fresh one, so retrying the request is safe."""
        keyed = [{"idempotencyKey": new_idempotency_key(), **wire_fields(message)} for message in messages]
        return Call(
            "POST",
            f"{_room(room_id)}/messages/batch",
            read_model(PublishBatchResult),
            json={"messages": keyed},
        )

    @operation
    def list(
        self,
        room_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        event_type: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> Call[Page[MessageStatus]]:
        """One page of a room's messages, newest first (``since``/``until``: ISO 8601)."""
        return Call(
            "GET",
            f"{_room(room_id)}/messages",
            read_page(MessageStatus, "messages"),
            params=query(limit=limit, cursor=cursor, eventType=event_type, since=since, until=until),
        )

    iter = paginated(list.build)

    @operation
    def get(self, room_id: str, message_id: str) -> Call[MessageStatus]:
        """A message and its delivery to each destination."""
        return Call("GET", f"{_room(room_id)}/messages/{segment(message_id)}", read_model(MessageStatus))

    @operation
    def attempts(
        self,
        room_id: str,
        message_id: str,
        *,
        subscription_id: str | None = None,
        cursor: str | None = None,
    ) -> Call[Page[Attempt]]:
        """A message's delivery attempts (one page: the API answers them all at once)."""
        return Call(
            "GET",
            f"{_room(room_id)}/messages/{segment(message_id)}/attempts",
            read_page(Attempt, "attempts"),
            params=query(subscriptionId=subscription_id, cursor=cursor),
        )

    iter_attempts = paginated(attempts.build)


class Deliveries(Resource[E]):
    @operation
    def list(
        self,
        room_id: str,
        subscription_id: str,
        *,
        status: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[DeliveryItem]]:
        """One page of a subscription's deliveries (``status``: pending, retrying, dead…)."""
        return Call(
            "GET",
            f"{_subscription(room_id, subscription_id)}/deliveries",
            read_page(DeliveryItem, "deliveries"),
            params=query(status=status, limit=limit, cursor=cursor),
        )

    iter = paginated(list.build)

    @operation
    def retry(
        self, room_id: str, subscription_id: str, *, message_ids: Sequence[str] | None = None
    ) -> Call[RetryResult]:
        """Attempt the subscription's retrying deliveries now (all of them, or ``message_ids``)."""
        body = {} if message_ids is None else {"messageIds": list(message_ids)}
        return Call(
            "POST",
            f"{_subscription(room_id, subscription_id)}/deliveries/retry",
            read_model(RetryResult),
            json=body,
            retry_safe=False,
        )

    @operation
    def clear(self, room_id: str, subscription_id: str) -> Call[ClearResult]:
        """Give up the subscription's undelivered messages (they end ``cleared``)."""
        return Call(
            "DELETE", f"{_subscription(room_id, subscription_id)}/deliveries", read_model(ClearResult)
        )


class DeadLetters(Resource[E]):
    @operation
    def list(
        self, room_id: str, subscription_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[DeadLetter]]:
        return Call(
            "GET",
            f"{_subscription(room_id, subscription_id)}/dead-letters",
            read_page(DeadLetter, "deadLetters"),
            params=query(limit=limit, cursor=cursor),
        )

    iter = paginated(list.build)

    @operation
    def replay(
        self,
        room_id: str,
        subscription_id: str,
        *,
        message_ids: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> Call[ReplayResult]:
        """Deliver dead letters again: ``message_ids``, or those that died in [since, until]
        (ISO 8601; a range replays a bounded number per call: repeat while ``remaining``)."""
        body = query(messageIds=None if message_ids is None else list(message_ids), since=since, until=until)
        return Call(
            "POST",
            f"{_subscription(room_id, subscription_id)}/dead-letters/replay",
            read_model(ReplayResult),
            json=body,
            retry_safe=False,
        )

    @operation
    def purge(self, room_id: str, subscription_id: str) -> Call[PurgeResult]:
        """Delete every dead letter of the subscription."""
        return Call(
            "DELETE", f"{_subscription(room_id, subscription_id)}/dead-letters", read_model(PurgeResult)
        )


class ApiKeys(Resource[E]):
    @operation
    def create(self, name: str | None = None) -> Call[CreatedApiKey]:
        """A new key of the tenant; its ``key`` is shown only in this answer."""
        return Call("POST", "/api-keys", read_model(CreatedApiKey), json=query(name=name), retry_safe=False)

    @operation
    def list(self, *, limit: int | None = None, cursor: str | None = None) -> Call[Page[ApiKey]]:
        return Call(
            "GET", "/api-keys", read_page(ApiKey, "apiKeys"), params=query(limit=limit, cursor=cursor)
        )

    iter = paginated(list.build)

    @operation
    def delete(self, key_id: str) -> Call[None]:
        """Revoke a key (it works until the authorizer's cache forgets it, 300 s by default)."""
        return Call("DELETE", f"/api-keys/{segment(key_id)}", read_nothing)


def seconds_of_wait(wait_ms: int | None) -> int | None:
    """A pull's ``waitSeconds`` from milliseconds, rounded up (the API counts whole seconds)."""
    return None if wait_ms is None else -(-wait_ms // 1000)


def pull_call(
    room_id: str, subscription_id: str, *, max_messages: int, wait_seconds: int | None
) -> Call[list[PulledMessage]]:
    # A retried pull after a lost answer only delays what the lost one handed out: those
    # messages come back after their ack wait.
    return Call(
        "POST",
        f"{_subscription(room_id, subscription_id)}/pull",
        read_list(PulledMessage, "messages"),
        json=query(maxMessages=max_messages, waitSeconds=wait_seconds),
    )


def receipts_call(
    action: str,
    room_id: str,
    subscription_id: str,
    receipts: Sequence[str],
    model: type[Receipts],
    **extra: Any,
) -> Call[Receipts]:
    """ack, nack or extend. The same receipts twice have the effect of once: retry-safe."""
    return Call(
        "POST",
        f"{_subscription(room_id, subscription_id)}/{action}",
        read_model(model),
        json={"receipts": list(receipts), **extra},
    )


class PullOperations(Resource[E]):
    """pull, ack, nack and extend on a PULL subscription (methods of the client itself)."""

    @operation
    def pull(
        self,
        room_id: str,
        subscription_id: str,
        *,
        max_messages: int = 10,
        wait_ms: int | None = None,
        wait_seconds: int | None = None,
    ) -> Call[list[PulledMessage]]:
        """Up to ``max_messages`` messages, each hidden for the ack wait; with ``wait_ms`` (or
        ``wait_seconds``, up to 20 s) waits that long for a first message (long polling)."""
        seconds = wait_seconds if wait_seconds is not None else seconds_of_wait(wait_ms)
        return pull_call(room_id, subscription_id, max_messages=max_messages, wait_seconds=seconds)

    @operation
    def ack(self, room_id: str, subscription_id: str, receipts: Sequence[str]) -> Call[AckResult]:
        """Done with these messages: they are not delivered again."""
        return receipts_call("ack", room_id, subscription_id, receipts, AckResult)

    @operation
    def nack(self, room_id: str, subscription_id: str, receipts: Sequence[str]) -> Call[NackResult]:
        """Give these messages back: each is delivered again after its backoff, or ends dead."""
        return receipts_call("nack", room_id, subscription_id, receipts, NackResult)

    @operation
    def extend(
        self, room_id: str, subscription_id: str, receipts: Sequence[str], *, ack_wait_ms: int
    ) -> Call[ExtendResult]:
        """Keep these messages hidden ``ack_wait_ms`` from now (work that takes longer)."""
        return receipts_call(
            "extend", room_id, subscription_id, receipts, ExtendResult, ackWaitMs=ack_wait_ms
        )
