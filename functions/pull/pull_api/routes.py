"""POST .../subscriptions/{subscriptionId}/pull, /ack, /nack and /extend: thin — parse, call, map."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel

from pull_api.acknowledging import AckResult, ExtendResult, NackResult
from pull_api.dependencies import Puller
from pull_api.models import (
    AckResponse,
    ExtendRequest,
    ExtendResponse,
    NackResponse,
    PulledMessage,
    PullRequest,
    PullResponse,
    ReceiptsRequest,
)
from roomcast.access import Scope, access
from roomcast.api import Routes, Tenant, link
from roomcast.platform import camel_fields, metrics

routes = Routes("pull")
BASE = "/rooms/<roomId>/subscriptions/<subscriptionId>"
RoomId = Annotated[
    str, Path(description="The room's id.", examples=["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"])
]
SubscriptionId = Annotated[
    str, Path(description="A PULL subscription's id.", examples=["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"])
]
_PATH = {"roomId": "$request.path.roomId", "subscriptionId": "$request.path.subscriptionId"}
_FIRST_RECEIPT = {"requestBody": {"receipts": ["$response.body#/messages/0/receipt"]}}
LINKS = {
    "AckFirst": link("ackMessages", "Acknowledge the first message.", **_PATH) | _FIRST_RECEIPT,
    "NackFirst": link("nackMessages", "Give the first message back.", **_PATH) | _FIRST_RECEIPT,
    "ExtendFirst": link("extendAckWait", "Keep the first message hidden longer.", **_PATH) | _FIRST_RECEIPT,
}
RECEIPT_ERRORS = (400, 404, 409, 415)


@routes.post(
    f"{BASE}/pull",
    "pullMessages",
    "The messages (possibly none)",
    *RECEIPT_ERRORS,
    links=LINKS,
    access=access(Scope.CONSUME),
)
def pull(
    roomId: RoomId, subscriptionId: SubscriptionId, body: PullRequest, tenant: Tenant, service: Puller
) -> PullResponse:
    """Pull messages

    Up to `maxMessages` due messages of a PULL subscription, waiting up to `waitSeconds` for the
    first (long polling). Each comes with a receipt to ack or nack it; a message neither acked nor
    nacked within the subscription's `ackWaitMs` comes back as the next attempt. 409 for a PUSH
    subscription.

    With `ack`, the request also acknowledges messages pulled before, as `POST .../ack` does, while
    it receives the next ones: every receipt is verified first (a malformed one, or one of another
    subscription, refuses the whole request with 400 before anything changes), and the answer
    says what the ack did under `acked` and `ackFailed`.
    """
    pulled = service.pull(tenant, roomId, subscriptionId, body.maxMessages, body.waitSeconds, body.ack)
    metrics.add_metric(name="MessagesPulled", unit=MetricUnit.Count, value=len(pulled.handed))
    answer = PullResponse(messages=[PulledMessage.of(h.envelope, h) for h in pulled.handed])
    if pulled.acked is None:
        return answer
    acked = _answer(AckResponse, "MessagesAcked", pulled.acked)
    return answer.model_copy(update={"acked": acked.acked, "ackFailed": acked.failed})


@routes.post(
    f"{BASE}/ack",
    "ackMessages",
    "Acked, and the receipts that were not",
    *RECEIPT_ERRORS,
    access=access(Scope.CONSUME),
)
def ack(
    roomId: RoomId, subscriptionId: SubscriptionId, body: ReceiptsRequest, tenant: Tenant, service: Puller
) -> AckResponse:
    """Acknowledge pulled messages

    The messages are delivered and leave the queue. Reported under `failed`, each with why: a
    receipt SQS no longer accepts (its ack wait ran out and the message was handed out again), and
    one whose message had already ended dead, expired or cleared (SQS may hand a message out twice;
    the other hand-out's nack can end it) — that message is not delivered, and leaves the queue
    too. A malformed receipt or one of another subscription refuses the whole request (400) before
    anything changes.
    """
    return _answer(AckResponse, "MessagesAcked", service.ack(tenant, roomId, subscriptionId, body.receipts))


@routes.post(
    f"{BASE}/nack",
    "nackMessages",
    "What happens to each message",
    *RECEIPT_ERRORS,
    access=access(Scope.CONSUME),
)
def nack(
    roomId: RoomId, subscriptionId: SubscriptionId, body: ReceiptsRequest, tenant: Tenant, service: Puller
) -> NackResponse:
    """Give pulled messages back

    Each message comes back after its backoff delay as the next attempt (`retry`), or ends `dead`
    (attempts used up; its failover gets it if there is one) or `expired` (the next attempt would
    fall past the room's expiry).
    """
    return _answer(
        NackResponse, "MessagesNacked", service.nack(tenant, roomId, subscriptionId, body.receipts)
    )


@routes.post(
    f"{BASE}/extend",
    "extendAckWait",
    "Extended, and the receipts that were not",
    *RECEIPT_ERRORS,
    access=access(Scope.CONSUME),
)
def extend(
    roomId: RoomId, subscriptionId: SubscriptionId, body: ExtendRequest, tenant: Tenant, service: Puller
) -> ExtendResponse:
    """Extend the ack wait of pulled messages

    Keeps the messages hidden `ackWaitMs` longer from now (SQS counts whole seconds, rounded up),
    for a consumer that needs more time than the subscription's `ackWaitMs`; their receipts stay
    valid and their attempt stays. A receipt SQS no longer accepts (its ack wait ran out and the
    message was handed out again, it was acked, or the message would stay hidden past SQS's 12
    hours from when it was pulled) is reported under `failed`; a malformed receipt or one of
    another subscription refuses the whole request (400) before anything changes.
    """
    extended = service.extend(tenant, roomId, subscriptionId, body.receipts, body.ackWaitMs)
    return _answer(ExtendResponse, "AckWaitsExtended", extended)


def _answer[M: BaseModel](answer: type[M], metric: str, result: AckResult | NackResult | ExtendResult) -> M:
    """A receipt route's answer: the service's ``result`` in camelCase, once the messages it did
    are added to the ``metric`` metric."""
    metrics.add_metric(name=metric, unit=MetricUnit.Count, value=len(_done(result)))
    return answer.model_validate(camel_fields(result))


def _done(result: AckResult | NackResult | ExtendResult) -> Sequence[object]:
    """The messages a receipt route did (acked, given back, or hidden longer)."""
    if isinstance(result, AckResult):
        return result.acked
    if isinstance(result, NackResult):
        return result.nacked
    return result.extended
