"""Publishing over the API: the request's payload checked, then routed, stored and enqueued like
every message (roomcast.delivery.publishing). Durable before the 202: a failure before the end
answers 5xx and the publisher retries."""

from __future__ import annotations

from publish_api.models import PublishRequest
from roomcast.delivery.publishing import Publisher
from roomcast.domain import limits
from roomcast.domain.messages import Message
from roomcast.domain.payloads import payload_size_bytes
from roomcast.errors import RoomcastError


class PayloadTooLarge(RoomcastError):
    def __init__(self, size_bytes: int) -> None:
        super().__init__(
            f"payload is {size_bytes} bytes as stored (compact JSON, non-ASCII characters escaped"
            f" as \\uXXXX); the limit is {limits.MAX_PAYLOAD_BYTES}",
            code="payload_too_large",
            http_status=413,
        )


class PublishService(Publisher):
    def publish(
        self, tenant_id: str, room_id: str, request: PublishRequest, idempotency_key: str | None = None
    ) -> Message:
        """A publish request: its payload size checked, then published (roomcast.delivery.publishing);
        with an ``idempotency_key``, under the message id that key names."""
        payload_size = payload_size_bytes(request.payload)
        if payload_size > limits.MAX_PAYLOAD_BYTES:
            raise PayloadTooLarge(payload_size)
        return self.publish_message(
            tenant_id,
            room_id,
            request.eventType,
            request.eventVersion,
            request.payload,
            request.correlationId,
            request.destinations,
            idempotency_key,
        )
