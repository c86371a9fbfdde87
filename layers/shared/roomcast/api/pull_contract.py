"""Pull, ack and nack requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, JsonValue

from roomcast.api.models import ApiModel

MAX_RECEIPTS_PER_REQUEST = 100


class PullRequest(ApiModel):
    maxMessages: Annotated[int, Field(ge=1, le=10)] = 10
    waitSeconds: Annotated[
        int, Field(ge=0, le=20, description="Long polling: wait this long for a message.")
    ] = 0


Receipts = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=4096)]],
    Field(min_length=1, max_length=MAX_RECEIPTS_PER_REQUEST),
]


class ReceiptsRequest(ApiModel):
    receipts: Receipts


class PulledMessage(BaseModel):
    receipt: str
    messageId: str
    correlationId: str
    eventType: str
    eventVersion: str
    payload: JsonValue
    attempt: int
    publishedAt: str


class PullResponse(BaseModel):
    messages: list[PulledMessage]


class ReceiptFailure(BaseModel):
    receipt: str
    messageId: str
    error: str


class AckResponse(BaseModel):
    acked: list[str]
    failed: list[ReceiptFailure] = []


class NackOutcome(BaseModel):
    messageId: str
    outcome: Literal["retry", "dead", "expired"]
    nextAttemptAt: str | None = None


class NackResponse(BaseModel):
    nacked: list[NackOutcome]
    failed: list[ReceiptFailure] = []
