"""Management function: the HTTP API's rooms and subscriptions routes.

Thin: parse and validate (powertools resolver + pydantic), call ManagementService, map the result.
"""

from __future__ import annotations

from functools import cache
from http import HTTPStatus
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from management_api import api_docs, mapping
from management_api.models import (
    DeadLetterList,
    ErrorResponse,
    MessageStatus,
    PurgeResponse,
    ReplayRequest,
    ReplayResponse,
    RoomCreate,
    RoomList,
    RoomPatch,
    RoomResponse,
    RotatedSecret,
    SchedulePreview,
    SubscriptionCreate,
    SubscriptionCreated,
    SubscriptionList,
    SubscriptionPatch,
    SubscriptionResponse,
)
from management_api.service import ManagementService
from roomcast.api.errors import install_error_handlers, json_body_required
from roomcast.api.errors import tenant_id as api_tenant_id
from roomcast.config import load_settings
from roomcast.dal.queues import QueueAdmin
from roomcast.domain import limits
from roomcast.domain.push_urls import PushUrlPolicy
from roomcast.observability import logger, metrics

app = APIGatewayHttpResolver(enable_validation=True)

Limit = Annotated[int, Query(ge=1, le=limits.MAX_PAGE_SIZE)]
Cursor = Annotated[str | None, Query(max_length=1024)]
ERROR_RESPONSES: dict[int, Any] = {
    code: {"description": text, "content": {"application/json": {"model": ErrorResponse}}}
    for code, text in (
        (400, "Malformed request"),
        (404, "Not found (or another tenant's)"),
        (409, "Conflict"),
        (422, "Validation error"),
    )
}


@cache
def service() -> ManagementService:
    # Imported here, not at cold start: only the routes that reach the data need them.
    from roomcast.delivery.endings import Endings
    from roomcast.delivery.log import DeliveryLog

    settings = load_settings()
    endings = Endings.for_settings(settings, DeliveryLog(settings.log_bucket, "management"))
    return ManagementService(
        repository=endings.repository,
        queues=QueueAdmin(settings.pull_queue_prefix),
        messages=endings.messages,
        dead_letter_store=endings.dead_letters,
        endings=endings,
        push_url_policy=PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls),
    )


def tenant_id() -> str:
    return api_tenant_id(app)


def _json(status: HTTPStatus, body: Any) -> Response[Any]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


# -- documentation (no key) -----------------------------------------------------------------------


@app.get("/openapi.json", include_in_schema=False)
def openapi_document() -> Response[str]:
    return Response(
        status_code=HTTPStatus.OK,
        content_type=content_types.APPLICATION_JSON,
        body=api_docs.openapi_json(app),
    )


@app.get("/docs", include_in_schema=False)
def swagger_ui() -> Response[str]:
    return Response(
        status_code=HTTPStatus.OK, content_type="text/html; charset=utf-8", body=api_docs.swagger_html(app)
    )


# -- rooms -------------------------------------------------------------------------------------------


@app.post("/rooms", status_code=201, responses=ERROR_RESPONSES, tags=["rooms"])
def create_room(body: RoomCreate) -> Response[RoomResponse]:
    room = service().create_room(tenant_id(), body.model_dump())
    return _json(HTTPStatus.CREATED, mapping.room_response(room))


@app.get("/rooms", responses=ERROR_RESPONSES, tags=["rooms"])
def list_rooms(limit: Limit = limits.DEFAULT_PAGE_SIZE, cursor: Cursor = None) -> RoomList:
    page = service().list_rooms(tenant_id(), limit, cursor)
    return RoomList(rooms=[mapping.room_response(r) for r in page.items], nextCursor=page.next_cursor)


@app.get("/rooms/<roomId>", responses=ERROR_RESPONSES, tags=["rooms"])
def get_room(roomId: str) -> RoomResponse:
    return mapping.room_response(service().get_room(tenant_id(), roomId))


@app.patch("/rooms/<roomId>", responses=ERROR_RESPONSES, tags=["rooms"])
def update_room(roomId: str, body: RoomPatch) -> RoomResponse:
    changes = body.model_dump(include=body.model_fields_set)
    return mapping.room_response(service().update_room(tenant_id(), roomId, changes))


@app.delete("/rooms/<roomId>", status_code=204, responses=ERROR_RESPONSES, tags=["rooms"])
def delete_room(roomId: str) -> Response[None]:
    service().delete_room(tenant_id(), roomId)
    return Response(status_code=HTTPStatus.NO_CONTENT, body=None)


# -- subscriptions -----------------------------------------------------------------------------------


@app.post("/rooms/<roomId>/subscriptions", status_code=201, responses=ERROR_RESPONSES, tags=["subscriptions"])
def create_subscription(
    roomId: str,
    body: Annotated[SubscriptionCreate, Body()],
) -> Response[SubscriptionCreated]:
    subscription, secret = service().create_subscription(tenant_id(), roomId, body.model_dump())
    return _json(HTTPStatus.CREATED, mapping.subscription_created(subscription, secret))


@app.get("/rooms/<roomId>/subscriptions", responses=ERROR_RESPONSES, tags=["subscriptions"])
def list_subscriptions(
    roomId: str,
    limit: Limit = limits.DEFAULT_PAGE_SIZE,
    cursor: Cursor = None,
) -> SubscriptionList:
    page = service().list_subscriptions(tenant_id(), roomId, limit, cursor)
    return SubscriptionList(
        subscriptions=[mapping.subscription_response(s) for s in page.items], nextCursor=page.next_cursor
    )


@app.get("/rooms/<roomId>/subscriptions/<subscriptionId>", responses=ERROR_RESPONSES, tags=["subscriptions"])
def get_subscription(roomId: str, subscriptionId: str) -> SubscriptionResponse:
    return mapping.subscription_response(service().get_subscription(tenant_id(), roomId, subscriptionId))


@app.patch(
    "/rooms/<roomId>/subscriptions/<subscriptionId>", responses=ERROR_RESPONSES, tags=["subscriptions"]
)
def update_subscription(roomId: str, subscriptionId: str, body: SubscriptionPatch) -> SubscriptionResponse:
    changes = body.model_dump(include=body.model_fields_set)
    return mapping.subscription_response(
        service().update_subscription(tenant_id(), roomId, subscriptionId, changes)
    )


@app.delete(
    "/rooms/<roomId>/subscriptions/<subscriptionId>",
    status_code=204,
    responses=ERROR_RESPONSES,
    tags=["subscriptions"],
)
def delete_subscription(roomId: str, subscriptionId: str) -> Response[None]:
    service().delete_subscription(tenant_id(), roomId, subscriptionId)
    return Response(status_code=HTTPStatus.NO_CONTENT, body=None)


@app.get("/rooms/<roomId>/messages/<messageId>", responses=ERROR_RESPONSES, tags=["messages"])
def message_status(roomId: str, messageId: str) -> MessageStatus:
    message, deliveries = service().message_status(tenant_id(), roomId, messageId)
    return mapping.message_status(message, deliveries)


SUBSCRIPTION = "/rooms/<roomId>/subscriptions/<subscriptionId>"


@app.post(f"{SUBSCRIPTION}/rotate-secret", responses=ERROR_RESPONSES, tags=["subscriptions"])
def rotate_secret(roomId: str, subscriptionId: str) -> RotatedSecret:
    """A new signing secret (shown once); the previous ones keep signing for 24 hours."""
    secret, valid_until_ms = service().rotate_secret(tenant_id(), roomId, subscriptionId)
    return RotatedSecret(
        signingSecret=secret,
        previousSecretsValidUntil=mapping.iso_ms(valid_until_ms) if valid_until_ms else None,
    )


@app.get(f"{SUBSCRIPTION}/schedule", responses=ERROR_RESPONSES, tags=["subscriptions"])
def schedule_preview(roomId: str, subscriptionId: str) -> SchedulePreview:
    """The subscription's effective retry schedule, and where the room's expiry cuts it off."""
    policy, expiration_ms = service().schedule(tenant_id(), roomId, subscriptionId)
    return mapping.schedule_preview(subscriptionId, policy, expiration_ms)


@app.get(f"{SUBSCRIPTION}/dead-letters", responses=ERROR_RESPONSES, tags=["dead letters"])
def list_dead_letters(
    roomId: str,
    subscriptionId: str,
    limit: Limit = limits.DEFAULT_PAGE_SIZE,
    cursor: Cursor = None,
) -> DeadLetterList:
    page = service().dead_letters(tenant_id(), roomId, subscriptionId, limit, cursor)
    return DeadLetterList(
        deadLetters=[mapping.dead_letter(d) for d in page.items], nextCursor=page.next_cursor
    )


@app.post(f"{SUBSCRIPTION}/dead-letters/replay", responses=ERROR_RESPONSES, tags=["dead letters"])
def replay_dead_letters(
    roomId: str,
    subscriptionId: str,
    body: Annotated[ReplayRequest | None, Body()] = None,
) -> ReplayResponse:
    """Send dead letters again from attempt 0: the given messageIds, or all (100 per call)."""
    replayed, not_found, remaining = service().replay(
        tenant_id(), roomId, subscriptionId, body.messageIds if body is not None else None
    )
    return ReplayResponse(replayed=replayed, notFound=not_found, remaining=remaining)


@app.delete(f"{SUBSCRIPTION}/dead-letters", responses=ERROR_RESPONSES, tags=["dead letters"])
def purge_dead_letters(roomId: str, subscriptionId: str) -> PurgeResponse:
    return PurgeResponse(purged=service().purge_dead_letters(tenant_id(), roomId, subscriptionId))


install_error_handlers(app)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return json_body_required(event) or app.resolve(event, context)
    finally:
        if service.cache_info().currsize:  # only requests that used the service can have log records
            service().endings.log.flush(context.aws_request_id)
