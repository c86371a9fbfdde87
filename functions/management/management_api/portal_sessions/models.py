"""Portal session requests and answers (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from management_api.fields import unique_items
from roomcast.access import (
    CONSUMER_ID_PATTERN,
    DEFAULT_PORTAL_SESSION_SECONDS,
    MAX_KEY_ROOMS,
    MAX_PORTAL_EVENT_TYPES,
    MAX_PORTAL_SESSION_SECONDS,
)
from roomcast.api import INTEGRAL, ApiModel, EventTypeName, RoomId, examples

_ROOM = "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"
_SESSION = {
    "sessionId": "ps_9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f",
    "consumerId": "acme",
    "rooms": [_ROOM],
    "eventTypes": ["order.created"],
    "readOnly": False,
    "expiresAt": "2026-11-28T11:00:00.000Z",
}


class PortalSessionCreate(ApiModel):
    model_config = examples(
        {"consumerId": "acme", "rooms": [_ROOM]},
        {
            "consumerId": "acme",
            "rooms": [_ROOM],
            "eventTypes": ["order.created", "order.shipped"],
            "readOnly": False,
            "expiresInSeconds": 3600,
        },
    )

    consumerId: str = Field(
        pattern=CONSUMER_ID_PATTERN,
        description="Your id for the customer: the session reaches only its subscriptions (`consumerId`).",
    )
    rooms: Annotated[
        list[RoomId],
        Field(
            min_length=1,
            max_length=MAX_KEY_ROOMS,
            json_schema_extra={"uniqueItems": True},
            description="The rooms whose subscriptions the customer manages (each an existing room).",
        ),
        AfterValidator(unique_items),
    ]
    eventTypes: Annotated[
        list[EventTypeName] | None,
        Field(
            min_length=1,
            max_length=MAX_PORTAL_EVENT_TYPES,
            json_schema_extra={"uniqueItems": True},
            description=(
                "The event types its subscriptions may receive: a subscription it creates or changes "
                "must name only these, and it sees only subscriptions to these. Absent: any."
            ),
        ),
        AfterValidator(unique_items),
    ] = None
    readOnly: bool = Field(
        False, description="True: the customer can look (subscriptions, attempts, metrics), not change."
    )
    expiresInSeconds: Annotated[int, INTEGRAL] = Field(
        DEFAULT_PORTAL_SESSION_SECONDS,
        ge=60,
        le=MAX_PORTAL_SESSION_SECONDS,
        description=f"How long the token works: 60 s to {MAX_PORTAL_SESSION_SECONDS} s (a day).",
    )


class PortalSessionView(BaseModel):
    model_config = examples(_SESSION)

    sessionId: str = Field(
        description="The session's id (`ps_` and 32 hex digits): revoke with it. Not a secret."
    )
    consumerId: str
    rooms: list[str]
    eventTypes: list[str] | None
    readOnly: bool
    expiresAt: str
    brand: PortalBrand | None = Field(
        None, description="How the portal page looks (your portal settings); on `GET /portal-session`."
    )


class PortalSessionCreated(PortalSessionView):
    model_config = examples(
        {
            **_SESSION,
            "token": "rcp_Vx3…",
            "url": "https://api.example.com/portal/ps_9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f#rcp_Vx3…",
        }
    )

    token: str = Field(
        description=(
            "The session's credential, shown once: send it as `Authorization: Bearer <token>`. It "
            "reaches only this consumer's subscriptions on these rooms, until `expiresAt` or revoked."
        )
    )
    url: str = Field(
        description=(
            "The portal page for this session, the token in its fragment (never sent to a server): "
            "open it, or embed it in an iframe from an origin your portal settings allow."
        )
    )


# An origin by name or IPv4 address (no IPv6 literal: its brackets are one more thing to parse).
ORIGIN_PATTERN = r"^https?://[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:[0-9]{1,5})?$"
MAX_FRAME_ANCESTORS = 10


class PortalBrand(BaseModel):
    title: str = Field(description="The page's title and heading.")
    logoUrl: str | None = Field(description="An https image shown beside the title; null: none.")
    accentColor: str = Field(description="The buttons' and links' colour, `#rrggbb`.")


class PortalSettingsBody(ApiModel):
    model_config = examples(
        {
            "title": "Acme Corp webhooks",
            "logoUrl": "https://cdn.example.com/logo.svg",
            "accentColor": "#0a7d5a",
            "frameAncestors": ["https://app.example.com"],
        }
    )

    title: str = Field("Webhooks", min_length=1, max_length=80, pattern=r"^[^\x00-\x1f\x7f<>]+$")
    logoUrl: str | None = Field(
        None,
        max_length=2048,
        pattern=r"^https://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?(/[^\s\"'<>()\\\[\]]*)?$",
        description="An https image URL; null: none.",
    )
    accentColor: str = Field("#2f6fed", pattern=r"^#[0-9a-fA-F]{6}$")
    frameAncestors: Annotated[
        list[Annotated[str, Field(pattern=ORIGIN_PATTERN, max_length=300)]],
        Field(
            max_length=MAX_FRAME_ANCESTORS,
            json_schema_extra={"uniqueItems": True},
            description=(
                "The origins (`https://app.example.com`, no path) whose pages may embed the portal in an "
                "iframe: its `Content-Security-Policy: frame-ancestors`. Empty: no page may frame it."
            ),
        ),
        AfterValidator(unique_items),
    ] = []


class PortalSettingsView(PortalSettingsBody):
    """The settings as stored (the defaults until set)."""


PortalSessionView.model_rebuild()
PortalSessionCreated.model_rebuild()
