"""POST .../subscriptions/{subscriptionId}/pull, /ack and /nack: thin — parse, call, map."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.metrics import MetricUnit

from pull_api.acknowledging import RefusedReceipt
from pull_api.dependencies import Puller
from pull_api.models import (
    AckResponse,
    NackOutcome,
    NackResponse,
    PulledMessage,
    PullRequest,
    PullResponse,
    ReceiptFailure,
    ReceiptsRequest,
)
from roomcast.api.openapi import link, responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant
from roomcast.observability import metrics

router = new_router()
TAGS = ["pull"]
_PATH = {"roomId": "$request.path.roomId", "subscriptionId": "$request.path.subscriptionId"}
_FIRST_RECEIPT = {"receipts": ["$response.body#/messages/0/receipt"]}
_PULLED_LINKS = {
    "AckFirst": {
        **link("ackMessages", "Acknowledge the first message.", **_PATH),
        "requestBody": _FIRST_RECEIPT,
    },
    "NackFirst": {
        **link("nackMessages", "Give the first message back.", **_PATH),
        "requestBody": _FIRST_RECEIPT,
    },
}
BASE = "/rooms/<roomId>/subscriptions/<subscriptionId>"
RoomId = Annotated[
    str, Path(description="The room's id.", examples=["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"])
]
SubscriptionId = Annotated[
    str, Path(description="A PULL subscription's id.", examples=["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"])
]


@router.post(
    f"{BASE}/pull",
    operation_id="pullMessages",
    summary="Pull messages",
    description="Up to `maxMessages` due messages of a PULL subscription, waiting up to `waitSeconds` for "
    "the first (long polling). Each comes with a receipt to ack or nack it; a message neither acked nor "
    "nacked within the subscription's `ackWaitMs` comes back as the next attempt. "
    "409 for a PUSH subscription.",
    responses=responses(200, "The messages (possibly none)", 400, 404, 409, 415, links=_PULLED_LINKS),
    tags=TAGS,
)
def pull(
    roomId: RoomId, subscriptionId: SubscriptionId, body: PullRequest, tenant: Tenant, puller: Puller
) -> PullResponse:
    handed = puller.pull(tenant, roomId, subscriptionId, body.maxMessages, body.waitSeconds)
    metrics.add_metric(name="MessagesPulled", unit=MetricUnit.Count, value=len(handed))
    return PullResponse(
        messages=[
            PulledMessage(
                receipt=h.receipt,
                messageId=h.envelope.message_id,
                correlationId=h.envelope.correlation_id,
                eventType=h.envelope.event_type,
                eventVersion=h.envelope.event_version,
                payload=h.envelope.payload,
                attempt=h.attempt,
                publishedAt=h.envelope.published_at,
            )
            for h in handed
        ]
    )


@router.post(
    f"{BASE}/ack",
    operation_id="ackMessages",
    summary="Acknowledge pulled messages",
    description="The messages are delivered and leave the queue. A receipt SQS no longer accepts (its ack "
    "wait ran out and the message was handed out again) is reported under `failed`; a malformed receipt or "
    "one of another subscription refuses the whole request (400) before anything changes.",
    responses=responses(200, "Acked, and the receipts that were not", 400, 404, 409, 415),
    tags=TAGS,
)
def ack(
    roomId: RoomId, subscriptionId: SubscriptionId, body: ReceiptsRequest, tenant: Tenant, puller: Puller
) -> AckResponse:
    result = puller.ack(tenant, roomId, subscriptionId, body.receipts)
    metrics.add_metric(name="MessagesAcked", unit=MetricUnit.Count, value=len(result.acked))
    return AckResponse(acked=result.acked, failed=[_failure(f) for f in result.failed])


@router.post(
    f"{BASE}/nack",
    operation_id="nackMessages",
    summary="Give pulled messages back",
    description="Each message comes back after its backoff delay as the next attempt (`retry`), or ends "
    "`dead` (attempts used up; its failover gets it if there is one) or `expired` (the next attempt would "
    "fall past the room's expiry).",
    responses=responses(200, "What happens to each message", 400, 404, 409, 415),
    tags=TAGS,
)
def nack(
    roomId: RoomId, subscriptionId: SubscriptionId, body: ReceiptsRequest, tenant: Tenant, puller: Puller
) -> NackResponse:
    result = puller.nack(tenant, roomId, subscriptionId, body.receipts)
    metrics.add_metric(name="MessagesNacked", unit=MetricUnit.Count, value=len(result.nacked))
    return NackResponse(
        nacked=[
            NackOutcome(messageId=n.message_id, outcome=n.outcome.value, nextAttemptAt=n.next_attempt_at)
            for n in result.nacked
        ],
        failed=[_failure(f) for f in result.failed],
    )


def _failure(refused: RefusedReceipt) -> ReceiptFailure:
    return ReceiptFailure(receipt=refused.receipt, messageId=refused.message_id, error=refused.error)
