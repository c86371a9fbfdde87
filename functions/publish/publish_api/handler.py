"""Publish function: POST /rooms/{roomId}/messages → 202 with the message id and destinations.

An ``Idempotency-Key`` header makes a retried publish return the first answer without
publishing twice (powertools idempotency, persisted in the table for 24 hours).
"""

from __future__ import annotations

import re
from functools import cache
from http import HTTPStatus
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from publish_api.service import PublishService
from roomcast.api.errors import body_too_large, install_error_handlers, json_body_required, tenant_id
from roomcast.api.publish_contract import PublishRequest, PublishResponse
from roomcast.config import load_settings
from roomcast.dal.messages import MessageStore
from roomcast.dal.repository import Repository
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery.log import DeliveryLog
from roomcast.domain import limits
from roomcast.errors import Conflict, InvalidRequest
from roomcast.observability import logger, metrics

IDEMPOTENCY_KEY_HEADER = "idempotency-key"
IDEMPOTENCY_KEY_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600

app = APIGatewayHttpResolver(enable_validation=True)
install_error_handlers(app)


@cache
def service() -> PublishService:
    settings = load_settings()
    return PublishService(
        repository=Repository(settings.table_name),
        messages=MessageStore(settings.table_name),
        sender=EnvelopeSender(),
        push_queue_url=settings.push_queue_url,
        log=delivery_log(),
    )


@cache
def delivery_log() -> DeliveryLog:
    return DeliveryLog(load_settings().log_bucket, "publish")


@cache
def idempotent_publish() -> Any:
    """The publish call wrapped by powertools idempotency (built on first use: it imports boto3)."""
    from aws_lambda_powertools.utilities.idempotency import (
        DynamoDBPersistenceLayer,
        IdempotencyConfig,
        idempotent_function,
    )

    from roomcast.dal.aws import dynamodb_client

    persistence = DynamoDBPersistenceLayer(
        table_name=load_settings().table_name,
        key_attr="PK",
        sort_key_attr="SK",
        static_pk_value="IDEMPOTENCY#publish",
        expiry_attr="ttl",
        boto3_client=dynamodb_client(),
    )
    config = IdempotencyConfig(
        event_key_jmespath="[tenantId, roomId, idempotencyKey]",
        payload_validation_jmespath="request",
        expires_after_seconds=IDEMPOTENCY_WINDOW_SECONDS,
    )

    @idempotent_function(data_keyword_argument="command", persistence_store=persistence, config=config)
    def publish_once(command: dict[str, Any]) -> dict[str, Any]:
        return service().publish(command["tenantId"], command["roomId"], command["request"])

    return publish_once, config


def idempotency_key(headers: dict[str, str]) -> str | None:
    value = headers.get(IDEMPOTENCY_KEY_HEADER)
    if value is None:
        return None
    if not IDEMPOTENCY_KEY_PATTERN.match(value):
        problem = "must be 1-128 letters, digits, '.', '_', ':' or '-'"
        raise InvalidRequest(
            f"Idempotency-Key {problem}",
            code="invalid_idempotency_key",
            http_status=400,
            details=[{"field": "header.Idempotency-Key", "problem": problem, "type": "invalid"}],
        )
    return value


@app.post("/rooms/<roomId>/messages", status_code=202, tags=["messages"])
def publish(roomId: str, body: PublishRequest) -> Response[PublishResponse]:
    tenant = tenant_id(app)
    key = idempotency_key({k.lower(): v for k, v in (app.current_event.headers or {}).items()})
    request = body.model_dump(mode="json")
    if key is None:
        result = service().publish(tenant, roomId, request)
    else:
        from aws_lambda_powertools.utilities.idempotency.exceptions import (
            IdempotencyAlreadyInProgressError,
            IdempotencyValidationError,
        )

        publish_once, config = idempotent_publish()
        config.register_lambda_context(app.lambda_context)
        command = {"tenantId": tenant, "roomId": roomId, "idempotencyKey": key, "request": request}
        try:
            result = publish_once(command=command)
        except IdempotencyValidationError as error:
            raise InvalidRequest(
                "this Idempotency-Key was used with a different request in the last 24 hours",
                code="idempotency_key_reused",
            ) from error
        except IdempotencyAlreadyInProgressError as error:
            raise Conflict("a publish with this Idempotency-Key is in progress; retry shortly") from error
    metrics.add_metric(name="MessagesPublished", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="DeliveriesCreated", unit=MetricUnit.Count, value=len(result["destinations"]))
    return Response(
        status_code=HTTPStatus.ACCEPTED,
        content_type=content_types.APPLICATION_JSON,
        body=PublishResponse(**result),
    )


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return (
            body_too_large(event, limits.MAX_PUBLISH_BODY_BYTES)
            or json_body_required(event)
            or app.resolve(event, context)
        )
    finally:
        delivery_log().flush(context.aws_request_id)
