"""POST /rooms/{roomId}/messages and /messages/batch: thin — parse, publish (at most once per
idempotency key: roomcast.publishing.keyed_messages), map."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Header, Path
from aws_lambda_powertools.metrics import MetricUnit

from publish_api.dependencies import Publisher
from publish_api.idempotency import IDEMPOTENCY_KEY_PATTERN, idempotency_key
from publish_api.models import (
    PublishBatchRequest,
    PublishBatchResponse,
    PublishRequest,
    PublishResponse,
)
from roomcast.access import Scope, access
from roomcast.api import Routes, Tenant
from roomcast.platform import RoomcastError, metrics, traceparent

routes = Routes("messages")
RoomId = Annotated[
    str, Path(description="The room's id.", examples=["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"])
]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="1-128 letters, digits, '.', '_', ':' or '-' (else 400); "
        "the same key with another body is refused (422).",
        # Documented, checked by idempotency_key(): a malformed key is a 400, not a validation 422.
        json_schema_extra={"pattern": IDEMPOTENCY_KEY_PATTERN.pattern},
    ),
]


TraceParent = Annotated[
    str | None,
    Header(
        alias="traceparent",
        description="W3C Trace Context: carried to the message's webhooks (the `traceparent` header) and "
        "PULL messages (`traceparent`), so that receivers can join the publisher's trace. One that is "
        "not a valid version-00 traceparent is ignored.",
        examples=["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    ),
]


@routes.post(
    "/rooms/<roomId>/messages",
    "publishMessage",
    "Accepted",
    400,
    404,
    409,
    413,
    415,
    status=202,
    access=access(Scope.PUBLISH),
)
def publish(
    roomId: RoomId,
    body: PublishRequest,
    tenant: Tenant,
    service: Publisher,
    idempotency: IdempotencyKey = None,
    trace: TraceParent = None,
) -> PublishResponse:
    """Publish a message to a room

    Routes the message to the room's active subscriptions whose filters accept its event type and
    version (or to the given `destinations`), stores it with one delivery record per destination,
    and enqueues one delivery each; 202 once that is durable. An `Idempotency-Key` header makes a
    retry within 24 hours return the first answer without publishing twice. With `deliverAt` or
    `deliverAfterMs` it is stored now and delivered then (`scheduled` until; cancelMessage cancels
    it before).
    """
    message = service.publish(tenant, roomId, body, idempotency_key(idempotency), traceparent(trace))
    published = PublishResponse.of_message(message)
    metrics.add_metric(name="MessagesPublished", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="DeliveriesCreated", unit=MetricUnit.Count, value=len(published.destinations))
    return published


@routes.post(
    "/rooms/<roomId>/messages/batch",
    "publishMessages",
    "Each message's outcome, in request order",
    400,
    404,
    413,
    415,
    status=200,
    access=access(Scope.PUBLISH),
)
def publish_batch(
    roomId: RoomId, body: PublishBatchRequest, tenant: Tenant, service: Publisher, trace: TraceParent = None
) -> PublishBatchResponse:
    """Publish up to 100 messages to a room

    Each message is validated, routed, stored and enqueued as a single publish would, and answered
    on its own, in request order: the published message (`status` 202 and what publishMessage
    answers) or why it was refused (`status`, the HTTP status a single publish would have had, and
    the error; a 5xx one may be retried). The request answers 200 whenever it was read, even if
    every message was refused: read `failedCount`. A message's `idempotencyKey` works as
    publishMessage's `Idempotency-Key` header: retrying a batch with the same keys answers the same
    message ids and publishes nothing twice. A request that is not a batch (not JSON, `messages`
    missing, empty or over 100, a body over 1 MiB) or names a room that does not exist is refused
    as a whole, and nothing is published.
    """
    answers = service.publish_many(tenant, roomId, body.messages, traceparent(trace))
    results: list[dict[str, object]] = []
    for answer in answers:
        if isinstance(answer, RoomcastError):
            error = {"code": answer.code, "message": answer.message, "details": answer.details}
            results.append({"status": answer.http_status, "error": error})
        else:
            results.append({"status": 202, **PublishResponse.of_message(answer).model_dump()})
    published = [a for a in answers if not isinstance(a, RoomcastError)]
    metrics.add_metric(name="MessagesPublished", unit=MetricUnit.Count, value=len(published))
    metrics.add_metric(
        name="DeliveriesCreated", unit=MetricUnit.Count, value=sum(len(m.destinations) for m in published)
    )
    return PublishBatchResponse.of_results(results)
