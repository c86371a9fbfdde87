"""The catalog's export (management_api.event_types.export): an OpenAPI 3.1 document that the
format's own validator accepts, whose request bodies accept the webhooks roomcast really sends
(and refuse what breaks the payload's schema)."""

from __future__ import annotations

import json
from typing import Any

from jsonschema_rs import Draft202012Validator
from openapi_spec_validator import validate

from management_api.event_types.export import webhooks_document
from push_worker.webhook import WebhookBody
from roomcast.event_types.model import EventType, Validation
from roomcast.messages.envelope import Envelope

ORDER = {
    "$defs": {"money": {"type": "number", "minimum": 0}},
    "type": "object",
    "required": ["orderId", "amount"],
    "properties": {"orderId": {"type": "integer"}, "amount": {"$ref": "#/$defs/money"}},
}


def _event_type(name: str, **fields: Any) -> EventType:
    return EventType("t", name, Validation.REJECT, "2026-11-26T00:00:00Z", "2026-11-26T00:00:00Z", **fields)


def _webhook(payload: Any, event_type: str = "order.created", version: str = "1") -> Any:
    envelope = Envelope(
        "msg_1",
        "t",
        "room_1",
        "sub_1",
        event_type,
        version,
        "c",
        "2026-11-26T00:00:00.000Z",
        0,
        None,
        0,
        0,
        0,
        payload,
    )
    return json.loads(WebhookBody.of(envelope).to_bytes())


def test_the_export_is_valid_openapi_31_with_one_webhook_per_event_type_and_version() -> None:
    # When
    document = webhooks_document(
        "t",
        [
            (
                _event_type("order.created", description="An order was placed."),
                {"1": ORDER, "2": {"type": "object"}},
            ),
            (_event_type("billing/invoice:paid", deprecated=True), {"1": {}}),
        ],
    )

    # Then
    validate(document)  # the format's own validator: raises on any departure from OpenAPI 3.1
    assert list(document["webhooks"]) == ["billing/invoice:paid v1", "order.created v1", "order.created v2"]
    paid = document["webhooks"]["billing/invoice:paid v1"]["post"]
    assert (paid["deprecated"], paid["operationId"]) == (True, "billing_invoice_paid_v1")
    assert [p["name"] for p in paid["parameters"]] == ["webhook-id", "webhook-timestamp", "webhook-signature"]


def test_a_webhook_body_as_roomcast_sends_it_meets_its_exported_schema() -> None:
    # Given: the exported body schema, with the payload's own references resolved inside it
    document = webhooks_document("t", [(_event_type("order.created"), {"1": ORDER})])
    body = document["webhooks"]["order.created v1"]["post"]["requestBody"]["content"]["application/json"]
    validator = Draft202012Validator(body["schema"])

    # Then
    assert validator.is_valid(_webhook({"orderId": 1, "amount": 5}))
    assert not validator.is_valid(_webhook({"orderId": 1, "amount": -5}))
    assert not validator.is_valid(_webhook({"orderId": 1, "amount": 5}, version="2"))


def test_an_empty_catalog_exports_an_empty_valid_document() -> None:
    document = webhooks_document("t", [])
    validate(document)
    assert document["webhooks"] == {}
