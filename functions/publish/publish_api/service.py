"""Publishing over the API: the request's payload checked, then routed, stored and enqueued like
every message (roomcast.publishing.publisher). Durable before the 202: a failure before the end
answers 5xx and the publisher retries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from publish_api.models import PublishBatchMessage, PublishRequest
from roomcast.api import validation_error
from roomcast.messages import Message, Publication
from roomcast.operations import OperationalEvents
from roomcast.platform import InvalidRequest, RoomcastError, check_payload_size, logger
from roomcast.publishing import Publisher


def _at(error: RoomcastError, index: int) -> RoomcastError:
    """A message's error with its fields named where the message is in the batch
    (``body.eventType`` -> ``body.messages.3.eventType``)."""
    for detail in error.details:
        field = str(detail.get("field", ""))
        if field == "body" or field.startswith("body."):
            detail["field"] = f"body.messages.{index}{field[4:]}"
    return error


@dataclass
class PublishService:
    """The publish API's use cases: each payload's size checked, then published by ``publisher``;
    a message published with schema errors (its event type warns) is reported through ``events``."""

    publisher: Publisher
    events: OperationalEvents | None = None

    def publish_many(
        self, tenant_id: str, room_id: str, messages: Sequence[dict[str, Any]], traceparent: str | None = None
    ) -> list[Message | RoomcastError]:
        """A batch publish: each message validated and size-checked on its own, then the valid
        ones published together (roomcast.publishing.publisher); one answer per message, in order."""
        answers: list[Message | RoomcastError | None] = [None] * len(messages)
        valid: list[tuple[int, Publication]] = []
        for index, raw in enumerate(messages):
            try:
                request = PublishBatchMessage.model_validate(raw)
                check_payload_size(request.payload)
                publication = _publication(request, request.idempotencyKey, traceparent)
            except ValidationError as invalid:
                answers[index] = validation_error(invalid.errors(), ("body", "messages", index))
                continue
            except RoomcastError as refused:
                answers[index] = _at(refused, index)
                continue
            valid.append((index, publication))
        published = self.publisher.publish_batch(
            tenant_id, room_id, [publication for _, publication in valid]
        )
        for (index, _), answer in zip(valid, published, strict=True):
            answers[index] = _at(answer, index) if isinstance(answer, RoomcastError) else answer
        self._report([answer for answer in published if isinstance(answer, Message)])
        return [answer for answer in answers if answer is not None]

    def publish(
        self,
        tenant_id: str,
        room_id: str,
        request: PublishRequest,
        idempotency_key: str | None = None,
        traceparent: str | None = None,
    ) -> Message:
        """A publish request: its payload size checked, then published (roomcast.publishing.publisher);
        with an ``idempotency_key``, under the message id that key names."""
        check_payload_size(request.payload)
        publication = _publication(request, idempotency_key, traceparent)
        message = self.publisher.publish_message(tenant_id, room_id, publication)
        self._report([message])
        return message

    def _report(self, messages: Sequence[Message]) -> None:
        """``message.schema_invalid`` into the room's operations room for each message published
        with schema errors. The messages are stored and sent already: a report that fails is
        logged, and the publish still answers (a retry would publish again)."""
        for message in messages:
            if message.schema_errors and self.events is not None:
                try:
                    self.events.schema_warning(message)
                except Exception:
                    logger.exception("reporting a schema warning failed", extra={"messageId": message.id})


def _publication(
    request: PublishRequest, idempotency_key: str | None, traceparent: str | None = None
) -> Publication:
    deliver_at = request.deliverAt
    if deliver_at is not None and request.deliverAfterMs is not None:
        problem = "give deliverAt or deliverAfterMs, not both"
        detail = {"field": "body", "problem": problem, "type": "deliver_at_conflict"}
        raise InvalidRequest(f"body: {problem}", [detail])
    if request.orderingKey is not None and (deliver_at is not None or request.deliverAfterMs is not None):
        problem = "an ordered message goes in its key's turn: give orderingKey or a delivery time, not both"
        detail = {"field": "body", "problem": problem, "type": "ordering_key_conflict"}
        raise InvalidRequest(f"body: {problem}", [detail])
    return Publication(
        request.eventType,
        request.eventVersion,
        request.payload,
        request.correlationId,
        request.destinations,
        idempotency_key,
        deliver_at_ms=round(deliver_at.timestamp() * 1000) if deliver_at is not None else None,
        deliver_after_ms=request.deliverAfterMs,
        ordering_key=request.orderingKey,
        traceparent=traceparent,
    )
