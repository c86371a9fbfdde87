"""Bulk-action requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from roomcast.api import ApiModel, examples
from roomcast.platform import MAX_PAGE_SIZE

MessageIdField = Annotated[str, Field(min_length=1, max_length=64)]


class RetryRequest(ApiModel):
    model_config = examples({"messageIds": ["msg_576e648137579110cd6d80e1bdbec8d3"]}, {})

    messageIds: (
        Annotated[
            list[MessageIdField],
            Field(min_length=1, max_length=MAX_PAGE_SIZE, description="Absent: every retrying delivery."),
        ]
        | None
    ) = None


class RetryResponse(BaseModel):
    model_config = examples(
        {"retried": 1, "messageIds": ["msg_576e648137579110cd6d80e1bdbec8d3"], "notRetrying": []}
    )

    retried: int = Field(description="How many deliveries are now due.")
    messageIds: list[str]
    notRetrying: list[str] = Field(description="Named messages without a retrying delivery here.")
