"""Test event request and answer (the public contract; see /openapi.json)."""

from __future__ import annotations

from pydantic import BaseModel, Field, JsonValue

from roomcast.api import ApiModel, EventTypeName, EventVersion, examples

PING = "roomcast.ping"


class TestEventRequest(ApiModel):
    model_config = examples(
        {}, {"eventType": "order.created"}, {"eventType": "order.created", "payload": {"id": 1}}
    )

    eventType: EventTypeName | None = Field(
        None,
        description=(
            f"Absent: a `{PING}` event. Else an event type of your catalog: its payload is `payload`, or "
            "the first of its schema's `examples`, or `{}`."
        ),
    )
    eventVersion: EventVersion | None = Field(
        None, description="The version (default: its latest; `1` for a ping)."
    )
    payload: JsonValue | None = Field(None, description="The payload to send (default: the sample).")


class TestEventSent(BaseModel):
    model_config = examples(
        {
            "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
            "eventType": PING,
            "eventVersion": "1",
            "payload": {"test": True, "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"},
        }
    )

    messageId: str = Field(
        description="The test message: its deliveries and attempts are read like any other's."
    )
    eventType: str
    eventVersion: str
    payload: JsonValue
