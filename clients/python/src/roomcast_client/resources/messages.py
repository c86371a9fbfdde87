"""``client.messages``: publish (one, or a batch of up to 100; now or at a time), list (or the
scheduled ones), get, cancel a scheduled one, and a message's delivery attempts."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from roomcast_client._core import Call, read_model, segment, wire_fields
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.models import Attempt, MessageStatus, Page, PublishBatchResult, PublishResult
from roomcast_client.resources.common import page_call, room_path

# A publish repeated with the same Idempotency-Key answers the first message: its retries are safe.
# 409 is that key's first request still in progress; it is retried like a 503.
_KEYED_PUBLISH_RETRYABLE = frozenset({409})


def new_idempotency_key() -> str:
    """A fresh key for one publish (the API takes 1-128 letters, digits, '.', '_', ':' or '-')."""
    return f"sdk-{uuid.uuid4().hex}"


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
        ``body`` is the whole message (``{"eventType", "eventVersion", "payload", …}``). To
        deliver it later: ``deliver_at=`` (a datetime, or RFC 3339 text with its offset) or
        ``deliver_after_ms=``, up to 365 days ahead; ``cancel`` cancels it before. ``ordering_key=``:
        ordered subscriptions get the messages of one key one at a time, in publish order.

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
            f"{room_path(room_id)}/messages",
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
            f"{room_path(room_id)}/messages/batch",
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
        scheduled: bool = False,
    ) -> Call[Page[MessageStatus]]:
        """One page of a room's messages, newest first (``since``/``until``: ISO 8601);
        ``scheduled``: only those waiting for their time, soonest first."""
        filters = {"eventType": event_type, "since": since, "until": until}
        if scheduled:
            filters["status"] = "scheduled"
        path = f"{room_path(room_id)}/messages"
        return page_call(path, MessageStatus, "messages", limit=limit, cursor=cursor, **filters)

    iter = paginated(list.build)

    @operation
    def get(self, room_id: str, message_id: str) -> Call[MessageStatus]:
        """A message and its delivery to each destination."""
        return Call("GET", f"{room_path(room_id)}/messages/{segment(message_id)}", read_model(MessageStatus))

    @operation
    def cancel(self, room_id: str, message_id: str) -> Call[MessageStatus]:
        """Cancel a scheduled message before its time (again: the same answer); Conflict
        (``not_scheduled``) once its time has come or for a message never scheduled."""
        path = f"{room_path(room_id)}/messages/{segment(message_id)}"
        return Call("DELETE", path, read_model(MessageStatus))

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
        path = f"{room_path(room_id)}/messages/{segment(message_id)}/attempts"
        return page_call(path, Attempt, "attempts", subscriptionId=subscription_id, cursor=cursor)

    iter_attempts = paginated(attempts.build)
