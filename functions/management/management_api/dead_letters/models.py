"""Dead-letter requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import JsonDict
from pydantic_core import PydanticCustomError

from roomcast.api import ApiModel, Instant, MessageView, examples
from roomcast.platform import REPLAY_BATCH, iso_timestamp

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


# messageIds with since or until, in JSON Schema: the replay's schema says "not" this. A null is
# absent here as in the model, so only an array of ids beside a time counts.
_IDS_WITH_A_WINDOW: JsonDict = {
    "description": "messageIds with since or until: give one or the other, not both",
    "required": ["messageIds"],
    "properties": {"messageIds": {"type": "array"}},
    "anyOf": [
        {"required": ["since"], "properties": {"since": {"type": "string"}}},
        {"required": ["until"], "properties": {"until": {"type": "string"}}},
    ],
}


class ReplayRequest(ApiModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"messageIds": ["msg_576e648137579110cd6d80e1bdbec8d3"]},
                {"since": "2026-11-22T10:00:00Z", "until": "2026-11-22T11:00:00Z"},
                {},
            ],
            "not": _IDS_WITH_A_WINDOW,
        }
    )

    messageIds: (
        Annotated[
            list[MessageIdField],
            Field(
                min_length=1,
                max_length=REPLAY_BATCH,
                description="Replayed before the answer. Absent: a job replays all (within since…until).",
            ),
        ]
        | None
    ) = None
    since: Instant | None = Field(
        default=None,
        description="Only letters that died at or after this time (not with messageIds; UTC if no zone).",
    )
    until: Instant | None = Field(
        default=None,
        description="Only letters that died at or before this time (not with messageIds; UTC if no zone).",
    )

    @model_validator(mode="after")
    def _one_selection(self) -> ReplayRequest:
        # The schema says "not both" too (_IDS_WITH_A_WINDOW); no JSON Schema compares two
        # fields, so an empty window is refused here only. Each refusal has a type of its own.
        if self.messageIds is not None and (self.since is not None or self.until is not None):
            raise PydanticCustomError("exclusive_fields", "give messageIds or since/until, not both")
        if self.since is not None and self.until is not None and self.since > self.until:
            raise PydanticCustomError("empty_window", "since is after until")
        return self

    def window(self) -> tuple[str | None, str | None] | None:
        """The dead-at window as roomcast's ISO text, or None when no time was given."""
        if self.since is None and self.until is None:
            return None
        return (
            iso_timestamp(self.since) if self.since else None,
            iso_timestamp(self.until) if self.until else None,
        )


class ReplayResponse(BaseModel):
    model_config = examples(
        {
            "replayed": ["msg_576e648137579110cd6d80e1bdbec8d3"],
            "notFound": [],
            "alreadyReplaying": [],
        }
    )

    replayed: list[str]
    notFound: list[str] = []
    alreadyReplaying: list[str] = Field(
        default=[],
        description="Dead letters another replay is sending right now: not sent again by this one.",
    )
