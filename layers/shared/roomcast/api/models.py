"""Request-model building blocks shared by the API functions."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from roomcast.domain import limits

EVENT_TYPE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$"
EVENT_VERSION_PATTERN = r"^[0-9]+(\.[0-9]+){0,3}$"


class ApiModel(BaseModel):
    """Strict: unknown fields and wrong JSON types are refused, never coerced."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, populate_by_name=True)


EventTypeName = Annotated[
    str, Field(min_length=1, max_length=limits.MAX_NAME_LENGTH, pattern=EVENT_TYPE_NAME_PATTERN)
]
EventVersion = Annotated[str, Field(pattern=EVENT_VERSION_PATTERN, max_length=32, examples=["1", "2.1"])]
SubscriptionId = Annotated[str, Field(min_length=1, max_length=64)]
