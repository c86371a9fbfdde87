"""/rooms/{roomId}/subscriptions/{subscriptionId}/dead-letters routes."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import Cursor, Limit, RoomId, SubscriptionIdPath
from management_api.dead_letters.models import (
    DeadLetterList,
    DeadLetterView,
    PurgeResponse,
    ReplayRequest,
    ReplayResponse,
)
from management_api.dependencies import DeadLetters
from roomcast.api.openapi import responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant
from roomcast.domain import limits

router = new_router()
TAGS = ["dead letters"]
DEAD_LETTERS = "/rooms/<roomId>/subscriptions/<subscriptionId>/dead-letters"


@router.get(
    DEAD_LETTERS,
    operation_id="listDeadLetters",
    summary="List a subscription's dead letters",
    description="Messages that ended dead for this subscription (attempts used up, a permanent 4xx, a "
    "refused URL), with the reason; kept 30 days. A page at a time.",
    responses=responses(200, "A page of dead letters", 400, 404, 422),
    tags=TAGS,
)
def list_dead_letters(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    dead_letters: DeadLetters,
    limit: Limit = limits.DEFAULT_PAGE_SIZE,
    cursor: Cursor = None,
) -> DeadLetterList:
    page = dead_letters.page(tenant, roomId, subscriptionId, limit, cursor)
    return DeadLetterList(deadLetters=[DeadLetterView.of(d) for d in page.items], nextCursor=page.next_cursor)


@router.post(
    f"{DEAD_LETTERS}/replay",
    operation_id="replayDeadLetters",
    summary="Replay dead letters",
    description="Sends the given dead letters (or, without `messageIds`, the next 100 of all) again from "
    "attempt 0 with the subscription's current policy, and removes them from the dead letters. "
    "`remaining` says whether more are left.",
    responses=responses(200, "What was replayed", 400, 404, 415),
    tags=TAGS,
)
def replay_dead_letters(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    dead_letters: DeadLetters,
    # Optional, but an object when given (the documented schema offers no null).
    body: Annotated[ReplayRequest, Body()] = None,  # type: ignore[assignment]
) -> ReplayResponse:
    result = dead_letters.replay(
        tenant, roomId, subscriptionId, body.messageIds if body is not None else None
    )
    return ReplayResponse(replayed=result.replayed, notFound=result.not_found, remaining=result.remaining)


@router.delete(
    DEAD_LETTERS,
    operation_id="purgeDeadLetters",
    summary="Purge a subscription's dead letters",
    description="Deletes every dead letter of the subscription (a PULL subscription's dead-letter queue "
    "is emptied too). They cannot be replayed afterwards.",
    responses=responses(200, "How many were purged", 404),
    tags=TAGS,
)
def purge_dead_letters(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, dead_letters: DeadLetters
) -> PurgeResponse:
    return PurgeResponse(purged=dead_letters.purge(tenant, roomId, subscriptionId))
