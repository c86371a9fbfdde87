"""Pull, ack, nack, extend requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from roomcast.api import INTEGRAL, ApiModel, MessageView, examples
from roomcast.platform import limits

MAX_RECEIPTS_PER_REQUEST = 100
_RECEIPT = (
    "rcpt_eyJzIjoic3ViXzRmOGY3ZDFjMmIzYTQ5ZTZhMGMxZDJlM2Y0YTViNmM3In0"
    ".3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
)


Receipt = Annotated[str, Field(min_length=1, max_length=4096)]
Receipts = Annotated[list[Receipt], Field(min_length=1, max_length=MAX_RECEIPTS_PER_REQUEST)]


class PullRequest(ApiModel):
    model_config = examples(
        {"maxMessages": 10, "waitSeconds": 20}, {}, {"maxMessages": 10, "ack": [_RECEIPT]}
    )

    maxMessages: Annotated[int, Field(ge=1, le=10, description="At most this many messages."), INTEGRAL] = 10
    waitSeconds: Annotated[
        int, Field(ge=0, le=20, description="Long polling: wait this long for a message."), INTEGRAL
    ] = 0
    ack: Annotated[
        list[Receipt] | None,
        Field(
            max_length=MAX_RECEIPTS_PER_REQUEST,
            description=(
                "Receipts of messages pulled before, acknowledged by this request as `POST .../ack` "
                "would (answered under `acked` and `ackFailed`; `[]` acks nothing): a consumer that "
                "acks what it handled with its next pull makes one request instead of two."
            ),
        ),
    ] = None


class ReceiptsRequest(ApiModel):
    model_config = examples({"receipts": [_RECEIPT]})

    receipts: Receipts


class ExtendRequest(ApiModel):
    model_config = examples({"receipts": [_RECEIPT], "ackWaitMs": 60000})

    receipts: Receipts
    ackWaitMs: Annotated[
        int,
        Field(
            ge=limits.MIN_ACK_WAIT_MS,
            le=limits.MAX_ACK_WAIT_MS,
            description="Keep the messages hidden this long from now (ms; SQS rounds up to whole seconds).",
        ),
        INTEGRAL,
    ]


class PulledMessage(MessageView):
    receipt: str = Field(description="Give it back to ack, nack or extend this message.")
    traceparent: str | None = Field(
        default=None,
        description="The publish's W3C Trace Context (its `traceparent` header), when it gave one.",
    )
    attempt: int = Field(description="0 on the first hand-out; each nack or ack-wait timeout adds one.")


class ReceiptFailure(BaseModel):
    receipt: str
    messageId: str
    error: str


class PullResponse(BaseModel):
    model_config = examples(
        {
            "messages": [
                {
                    "receipt": _RECEIPT,
                    "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
                    "correlationId": "order-1001",
                    "eventType": "order.created",
                    "eventVersion": "1",
                    "payload": {"orderId": 1001},
                    "attempt": 0,
                    "publishedAt": "2026-11-22T10:00:00.000Z",
                }
            ]
        }
    )

    messages: list[PulledMessage]
    acked: list[str] | None = Field(
        None, description="With `ack`: the messages acknowledged (as `POST .../ack` answers); null without."
    )
    ackFailed: list[ReceiptFailure] | None = Field(
        None,
        description=(
            "With `ack`: the receipts not acknowledged — SQS no longer accepted them, or their "
            "message had already ended (as `POST .../ack` answers `failed`); null without."
        ),
    )


class AckResponse(BaseModel):
    model_config = examples({"acked": ["msg_576e648137579110cd6d80e1bdbec8d3"], "failed": []})

    acked: list[str]
    failed: list[ReceiptFailure] = []


class NackOutcome(BaseModel):
    messageId: str
    outcome: Literal["retry", "dead", "expired"]
    nextAttemptAt: str | None = None


class NackResponse(BaseModel):
    model_config = examples(
        {
            "nacked": [
                {
                    "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
                    "outcome": "retry",
                    "nextAttemptAt": "2026-11-22T10:00:02.000Z",
                }
            ],
            "failed": [],
        }
    )

    nacked: list[NackOutcome]
    failed: list[ReceiptFailure] = []


class ExtendResponse(BaseModel):
    model_config = examples({"extended": ["msg_576e648137579110cd6d80e1bdbec8d3"], "failed": []})

    extended: list[str]
    failed: list[ReceiptFailure] = []
