"""Dead-letter requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from roomcast.api.models import ApiModel, MessageView, examples
from roomcast.domain.limits import REPLAY_BATCH

MessageIdField = Annotated[str, Field(min_length=1, max_length=64)]


class DeadLetterView(MessageView):
    attempts: int
    reason: str
    deadAt: str


class DeadLetterList(BaseModel):
    model_config = examples(
        {
            "deadLetters": [
                {
                    "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
                    "correlationId": "order-1001",
                    "eventType": "order.created",
                    "eventVersion": "1",
                    "payload": {"orderId": 1001},
                    "publishedAt": "2026-11-22T10:00:00.000Z",
                    "attempts": 6,
                    "reason": "HTTP 503; attempts exhausted",
                    "deadAt": "2026-11-22T10:00:31.400Z",
                }
            ],
            "nextCursor": None,
        }
    )

    deadLetters: list[DeadLetterView]
    nextCursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null at the end."
    )


class ReplayRequest(ApiModel):
    model_config = examples({"messageIds": ["msg_576e648137579110cd6d80e1bdbec8d3"]}, {})

    messageIds: (
        Annotated[
            list[MessageIdField],
            Field(
                min_length=1,
                max_length=REPLAY_BATCH,
                description=f"Absent: replay every dead letter ({REPLAY_BATCH} per call).",
            ),
        ]
        | None
    ) = None


class ReplayResponse(BaseModel):
    model_config = examples(
        {"replayed": ["msg_576e648137579110cd6d80e1bdbec8d3"], "notFound": [], "remaining": False}
    )

    replayed: list[str]
    notFound: list[str] = []
    remaining: bool = Field(description="More dead letters are left; call again to replay them.")


class PurgeResponse(BaseModel):
    model_config = examples({"purged": 12})

    purged: int
