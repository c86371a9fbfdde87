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
