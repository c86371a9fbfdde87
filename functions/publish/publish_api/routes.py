"""POST /rooms/{roomId}/messages: thin — parse, publish (at most once per Idempotency-Key), map."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Header, Path
from aws_lambda_powertools.metrics import MetricUnit

from publish_api.dependencies import Publisher, idempotent_publisher
from publish_api.idempotency import IDEMPOTENCY_KEY_PATTERN, PublishCommand, idempotency_key
from publish_api.models import PublishRequest, PublishResponse
from roomcast.api.routing import Routes
from roomcast.api.tenancy import Tenant
from roomcast.observability import metrics

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


@routes.post("/rooms/<roomId>/messages", "publishMessage", "Accepted", 400, 404, 409, 413, 415, status=202)
def publish(
    roomId: RoomId,
    body: PublishRequest,
    tenant: Tenant,
    service: Publisher,
    idempotency: IdempotencyKey = None,
) -> PublishResponse:
    """Publish a message to a room

    Routes the message to the room's active subscriptions whose filters accept its event type and
    version (or to the given `destinations`), stores it with one delivery record per destination,
    and enqueues one delivery each; 202 once that is durable. An `Idempotency-Key` header makes a
    retry within 24 hours return the first answer without publishing twice.
    """
    key = idempotency_key(idempotency)
    if key is None:
        message = service.publish(tenant, roomId, body)
        published = PublishResponse.of(message, messageId=message.id)
    else:
        command = PublishCommand(tenantId=tenant, roomId=roomId, idempotencyKey=key, request=body)
        published = idempotent_publisher().publish(command, routes.router.lambda_context)
    metrics.add_metric(name="MessagesPublished", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="DeliveriesCreated", unit=MetricUnit.Count, value=len(published.destinations))
    return published
