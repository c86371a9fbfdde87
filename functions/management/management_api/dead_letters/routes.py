"""/rooms/{roomId}/subscriptions/{subscriptionId}/dead-letters routes."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import PAGE_SIZE, Cursor, Limit, RoomId, SubscriptionIdPath
from management_api.dead_letters.models import DeadLetterList, DeadLetterView, ReplayRequest, ReplayResponse
from management_api.dependencies import DeadLetters, Jobs, Lists
from management_api.jobs.models import JOB_LINK, JobView, accepted, done, named_or_all, started
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Routes, Tenant, list_scope

routes = Routes("dead letters")
DEAD_LETTERS = "/rooms/<roomId>/subscriptions/<subscriptionId>/dead-letters"


@routes.get(
    DEAD_LETTERS,
    "listDeadLetters",
    "A page of dead letters",
    400,
    404,
    access=access(Scope.READ, Scope.MANAGE, portal=PortalUse.READ),
)
def list_dead_letters(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    service: DeadLetters,
    lists: Lists,
    limit: Limit = PAGE_SIZE,
    cursor: Cursor = None,
) -> DeadLetterList:
    """List a subscription's dead letters

    Messages that ended dead for this subscription (attempts used up, a permanent 4xx, a refused
    URL), with the reason; kept 30 days. A page at a time.
    """
    scope = list_scope("dead-letters", roomId, subscriptionId)
    page = service.page(lists.tenant_id, roomId, subscriptionId, limit, lists.open(cursor, scope))
    return DeadLetterList(
        deadLetters=[DeadLetterView.of(d.envelope, d) for d in page.items],
        nextCursor=lists.seal(page.next_position, scope),
    )


@named_or_all(
    routes,
    f"{DEAD_LETTERS}/replay",
    "replayDeadLetters",
    "The named dead letters, replayed",
    400,
    404,
    415,
    job="A range (or all): the replay job",
    named=ReplayResponse,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def replay_dead_letters(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: DeadLetters,
    jobs: Jobs,
    # Optional, but an object when given (the documented schema offers no null).
    body: Annotated[ReplayRequest, Body()] = None,  # type: ignore[assignment]
) -> Response[ReplayResponse | JobView]:
    """Replay dead letters

    Sends dead letters again from attempt 0 with the subscription's current policy, and removes
    them from the dead letters. With `messageIds` (at most {REPLAY_BATCH}) they are replayed before
    the answer (200); a dead letter another replay is sending at that moment is listed in
    `alreadyReplaying`, not sent twice. Without them, every letter that died within
    `since`…`until` (or every one) until now is replayed by a job: the answer is 202 with the job
    to poll (`GET /jobs/{{jobId}}`).
    """
    if body is not None and body.messageIds is not None:
        result = service.replay(tenant, roomId, subscriptionId, body.messageIds)
        return done(
            ReplayResponse(
                replayed=result.replayed, notFound=result.not_found, alreadyReplaying=result.already_replaying
            )
        )
    window = (body.window() if body is not None else None) or (None, None)
    return started(jobs.replay_dead_letters(tenant, roomId, subscriptionId, window))


@routes.delete(DEAD_LETTERS, "purgeDeadLetters", "Purge started: the job", 404, status=202, links=JOB_LINK)
def purge_dead_letters(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, jobs: Jobs
) -> Response[JobView]:
    """Purge a subscription's dead letters

    Starts a job that deletes every dead letter of the subscription that died until now (a PULL
    subscription's dead-letter queue is emptied too); poll `GET /jobs/{{jobId}}`. They cannot be
    replayed afterwards.
    """
    return accepted(jobs.purge_dead_letters(tenant, roomId, subscriptionId))
