"""Schedule preview response (the public contract; see /openapi.json)."""

from __future__ import annotations

from pydantic import Field

from roomcast.api import ResponseModel, examples

NOTE = (
    "Without jitter or Retry-After. Jitter lengthens each delay by up to that fraction; a "
    "subscriber's Retry-After can lengthen one. After the last attempt: dead, or the failover."
)


class ScheduledAttemptView(ResponseModel):
    attempt: int
    delayMs: int = Field(description="Wait before this attempt (0 for the first delivery).")
    sincePublishMs: int = Field(description="When it falls if every earlier attempt failed at once.")
    cutByExpiry: bool = Field(description="Falls at or after the room's expiry: never made; expired instead.")


class EffectivePolicy(ResponseModel):
    deliveryDelayMs: int
    deliveryDelayMultiplier: float
    deliveryAttempts: int
    maxDelayMs: int | None
    jitter: float
    retryScheduleMs: list[int] | None
    messageExpirationMs: int | None


class SchedulePreview(ResponseModel):
    model_config = examples(
        {
            "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
            "policy": {
                "deliveryDelayMs": 1000,
                "deliveryDelayMultiplier": 2.0,
                "deliveryAttempts": 2,
                "maxDelayMs": None,
                "jitter": 0.0,
                "retryScheduleMs": None,
                "messageExpirationMs": 2500,
            },
            "attempts": [
                {"attempt": 0, "delayMs": 0, "sincePublishMs": 0, "cutByExpiry": False},
                {"attempt": 1, "delayMs": 1000, "sincePublishMs": 1000, "cutByExpiry": False},
                {"attempt": 2, "delayMs": 2000, "sincePublishMs": 3000, "cutByExpiry": True},
            ],
            "note": NOTE,
        }
    )

    subscriptionId: str
    policy: EffectivePolicy
    attempts: list[ScheduledAttemptView]
    note: str
