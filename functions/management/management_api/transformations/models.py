"""A transformation's versions and its dry run (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from management_api.subscriptions.shaping import TransformationSource
from roomcast.api import ApiModel, EventTypeName, examples
from roomcast.platform import limits

_SOURCE = "function handler(webhook) { webhook.payload = {id: webhook.payload.orderId}; return webhook; }"


class TransformationVersion(BaseModel):
    version: int = Field(description="Counts up from 1 for each subscription; never reused.")
    source: str
    createdAt: str


class TransformationView(BaseModel):
    model_config = examples(
        {
            "current": {"version": 2, "source": _SOURCE, "createdAt": "2026-11-28T10:00:00.000Z"},
            "previous": {
                "version": 1,
                "source": "function handler(w) { return w; }",
                "createdAt": "2026-11-27T09:00:00.000Z",
            },
        }
    )

    current: TransformationVersion | None = Field(description="What runs on each delivery; null: none.")
    previous: TransformationVersion | None = Field(
        description="What a rollback makes current again; null: none kept."
    )


class TransformationTest(ApiModel):
    model_config = examples(
        {"eventType": "order.created", "payload": {"orderId": 1001}},
        {"eventType": "order.created", "payload": {"orderId": 1001}, "transformation": _SOURCE},
    )

    eventType: EventTypeName
    payload: JsonValue = Field(description=f"Any JSON, at most {limits.MAX_PAYLOAD_BYTES} bytes serialized.")
    transformation: TransformationSource | None = Field(
        default=None,
        description="A candidate source to run instead of the subscription's (nothing is saved).",
    )


TestOutcome = Literal["transformed", "cancelled", "failed"]


class TransformationTestResult(BaseModel):
    model_config = examples(
        {
            "outcome": "transformed",
            "payload": {"id": 1001},
            "url": "https://hooks.example.com/roomcast",
            "method": "POST",
            "headers": {},
            "error": None,
        },
        {"outcome": "failed", "error": "ran past its 50 ms limit"},
    )

    outcome: TestOutcome = Field(
        description="`transformed`: the delivery would carry `payload`; `cancelled`: it would end "
        "`filtered`; `failed`: the attempt would fail with `error` (and be retried)."
    )
    version: int | None = Field(default=None, description="The version run; null: a candidate source.")
    payload: JsonValue = None
    url: str | None = None
    method: str | None = None
    headers: dict[str, str] | None = None
    error: str | None = None
