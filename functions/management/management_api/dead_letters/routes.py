"""/rooms/{roomId}/subscriptions/{subscriptionId}/dead-letters routes."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import PAGE_SIZE, Cursor, Limit, RoomId, SubscriptionIdPath
from management_api.dead_letters.models import (
    DeadLetterList,
    DeadLetterView,
    PurgeResponse,
    ReplayRequest,
    ReplayResponse,
)
from management_api.dependencies import Cursors, DeadLetters
from roomcast.api.cursors import list_scope
from roomcast.api.documented_routes import Routes
from roomcast.api.tenancy import Tenant

routes = Routes("dead letters")
DEAD_LETTERS = "/rooms/<roomId>/subscriptions/<subscriptionId>/dead-letters"


@routes.get(DEAD_LETTERS, "listDeadLetters", "A page of dead letters", 400, 404)
def list_dead_letters(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: DeadLetters,
    cursors: Cursors,
    limit: Limit = PAGE_SIZE,
    cursor: Cursor = None,
) -> DeadLetterList:
    """List a subscription's dead letters

    Messages that ended dead for this subscription (attempts used up, a permanent 4xx, a refused
    URL), with the reason; kept 30 days. A page at a time.
    """
    scope = list_scope("dead-letters", roomId, subscriptionId)
    page = service.page(tenant, roomId, subscriptionId, limit, cursors.open(cursor, tenant, scope))
    return DeadLetterList(
        deadLetters=[DeadLetterView.of(d.envelope, d) for d in page.items],
        nextCursor=cursors.seal(page.next_position, tenant, scope),
    )


@routes.post(f"{DEAD_LETTERS}/replay", "replayDeadLetters", "What was replayed", 400, 404, 415)
def replay_dead_letters(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: DeadLetters,
    # Optional, but an object when given (the documented schema offers no null).
    body: Annotated[ReplayRequest, Body()] = None,  # type: ignore[assignment]
) -> ReplayResponse:
    """Replay dead letters

    Sends the given dead letters (or, without `messageIds`, the next {REPLAY_BATCH} of all) again
    from attempt 0 with the subscription's current policy, and removes them from the dead letters.
    A dead letter another replay is sending at that moment is listed in `alreadyReplaying`, not
    sent twice. `remaining` says whether more are left.
    """
    result = service.replay(
        tenant,
        roomId,
        subscriptionId,
        body.messageIds if body is not None else None,
        body.window() if body is not None else None,
    )
    return ReplayResponse(
        replayed=result.replayed,
        notFound=result.not_found,
        alreadyReplaying=result.already_replaying,
        remaining=result.remaining,
    )


@routes.delete(DEAD_LETTERS, "purgeDeadLetters", "How many were purged", 404)
def purge_dead_letters(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: DeadLetters
) -> PurgeResponse:
    """Purge a subscription's dead letters

    Deletes every dead letter of the subscription (a PULL subscription's dead-letter queue is
    emptied too). They cannot be replayed afterwards.
    """
    return PurgeResponse(purged=service.purge(tenant, roomId, subscriptionId))
