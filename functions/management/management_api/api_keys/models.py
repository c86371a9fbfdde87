"""API key requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field

from management_api.fields import Name, unique_items
from roomcast.access import MAX_KEY_ROOMS
from roomcast.api import ApiModel, RoomId, examples

_KEY_EXAMPLE = {
    "keyId": "key_3f9a1c7e5b2d4f60",
    "name": "billing service",
    "createdAt": "2026-11-23T10:00:00.000Z",
    "scopes": ["publish"],
    "rooms": ["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"],
}

ScopeName = Literal["admin", "manage", "read", "publish", "consume"]
_SCOPES_DESCRIPTION = (
    "What the key may do (any of them): `admin` everything (the default, and every key made "
    "before scopes); `manage` rooms, subscriptions, the catalog, alerts, dead letters and jobs, "
    "never keys or portal sessions; `read` every GET; `publish` publish, and read the rooms' "
    "messages and their attempts; `consume` pull, ack, nack and extend PULL messages. A request "
    "outside them answers 403 `missing_scope` naming the scope it needs."
)


class ApiKeyCreate(ApiModel):
    model_config = examples(
        {"name": "billing service"},
        {},
        {
            "name": "order publisher",
            "scopes": ["publish"],
            "rooms": ["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"],
        },
    )

    name: Name | None = Field(None, description="What the key is for, shown in lists (never the key).")
    scopes: Annotated[
        list[ScopeName],
        Field(
            min_length=1,
            max_length=5,
            json_schema_extra={"uniqueItems": True},
            description=_SCOPES_DESCRIPTION,
        ),
        AfterValidator(unique_items),
    ] = ["admin"]
    rooms: Annotated[
        list[RoomId] | None,
        Field(
            min_length=1,
            max_length=MAX_KEY_ROOMS,
            json_schema_extra={"uniqueItems": True},
            description=(
                f"The only rooms the key works on (at most {MAX_KEY_ROOMS}, each an existing room); "
                "any other room is not found (404), as if it did not exist, and routes about no "
                "room but listing rooms and reading the catalog answer 403 `room_limited`. "
                "Absent: every room."
            ),
        ),
        AfterValidator(unique_items),
    ] = None


class ApiKeyView(BaseModel):
    model_config = examples({**_KEY_EXAMPLE, "current": True})

    keyId: str = Field(description="The key's id: `key_` and 16 hex digits. Not a secret.")
    name: str
    createdAt: str
    scopes: list[ScopeName] = Field(description="What the key may do.")
    rooms: list[str] | None = Field(description="The only rooms it works on; null: every room.")
    current: bool = Field(description="Whether this is the key the request was made with.")


class CreatedApiKey(BaseModel):
    model_config = examples({**_KEY_EXAMPLE, "key": "rc_4mXq…"})

    keyId: str
    name: str
    createdAt: str
    scopes: list[ScopeName]
    rooms: list[str] | None
    key: str = Field(description="The API key itself: shown once, never again (only its hash is stored).")


class ApiKeyList(BaseModel):
    model_config = examples({"apiKeys": [{**_KEY_EXAMPLE, "current": True}], "nextCursor": None})

    apiKeys: list[ApiKeyView]
    nextCursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last.")
