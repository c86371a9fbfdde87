"""API key requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from management_api.fields import Name
from roomcast.api import ApiModel, examples

_KEY_EXAMPLE = {
    "keyId": "key_3f9a1c7e5b2d4f60",
    "name": "billing service",
    "createdAt": "2026-11-23T10:00:00.000Z",
}


class ApiKeyCreate(ApiModel):
    model_config = examples({"name": "billing service"}, {})

    name: Name | None = Field(None, description="What the key is for, shown in lists (never the key).")


class ApiKeyView(BaseModel):
    model_config = examples({**_KEY_EXAMPLE, "current": True})

    keyId: str = Field(description="The key's id: `key_` and 16 hex digits. Not a secret.")
    name: str
    createdAt: str
    current: bool = Field(description="Whether this is the key the request was made with.")


class CreatedApiKey(BaseModel):
    model_config = examples({**_KEY_EXAMPLE, "key": "rc_4mXq…"})

    keyId: str
    name: str
    createdAt: str
    key: str = Field(description="The API key itself: shown once, never again (only its hash is stored).")


class ApiKeyList(BaseModel):
    model_config = examples({"apiKeys": [{**_KEY_EXAMPLE, "current": True}], "nextCursor": None})

    apiKeys: list[ApiKeyView]
    nextCursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last.")
