"""The clients' code generated from the API's OpenAPI document (`make sdk-models`,
docs/decisions/0044-generated-sdk-models.md): committed and current with openapi.json, the only
place the SDK's models and the clients' enumerations are written, and read as a tolerant reader
reads the API's answers."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import pkgutil
from enum import StrEnum
from importlib.metadata import version
from typing import Any

import pydantic
import pytest

from roomcast_dev import contract_enums, sdk_models
from roomcast_dev.contract_reading import sdk_document

DOCUMENT: dict[str, Any] = json.loads(sdk_models.DOCUMENT_PATH.read_text(encoding="utf-8"))


def _modules(package: str) -> list[Any]:
    root = importlib.import_module(package)
    names = [
        info.name
        for info in pkgutil.walk_packages(root.__path__, f"{package}.")
        if not info.name.endswith(".__main__")  # it runs the program
    ]
    return [root, *(importlib.import_module(name) for name in names)]


def test_the_generated_files_are_current_with_openapi_json() -> None:
    # When: what `make sdk-models` would write from the committed document now
    files = sdk_models.outputs()

    # Then: the committed files are those, and the SDK's _generated/ holds them alone
    assert [p.name for p in sdk_models.stale(files)] == [], "stale generated client code: run make sdk-models"
    generated = {p for p in sdk_models.GENERATED_DIR.iterdir() if p.suffix == ".py"}
    assert generated == {p for p in files if p.parent == sdk_models.GENERATED_DIR}
    for text in files.values():
        assert "Generated from functions/docs/api_docs/openapi.json by `make sdk-models`" in text
    header = f"# {sdk_models.GENERATOR} {version(sdk_models.GENERATOR)}, options in"
    assert header in files[sdk_models.SDK_MODELS]


def test_no_model_of_the_sdk_is_written_by_hand() -> None:
    # When: every pydantic model the SDK's modules define, but its generated ones
    hand_written = {
        f"{cls.__module__}.{cls.__name__}"
        for module in _modules("roomcast_client")
        if not module.__name__.startswith("roomcast_client._generated")
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, pydantic.BaseModel) and cls.__module__ == module.__name__
    }

    # Then: only the base, the generic page and the two that add behaviour to a generated one
    assert hand_written == {
        "roomcast_client._api_model.ApiModel",
        "roomcast_client.models.Page",
        "roomcast_client.models.PullAndAckResult",
        "roomcast_client.job.Job",
    }


def test_no_enumeration_of_the_clients_is_written_by_hand() -> None:
    # When: every StrEnum the SDK's and the CLI's modules define, but the generated ones
    hand_written = [
        f"{module.__name__}.{name}"
        for package in ("roomcast_client", "roomcast_cli")
        for module in _modules(package)
        if not module.__name__.startswith(("roomcast_client._generated", "roomcast_cli._enums"))
        for name, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, StrEnum) and cls.__module__ == module.__name__
    ]

    # Then
    assert hand_written == []


def test_the_cli_names_every_delivery_status_still_on_its_way_and_takes_the_others_as_final() -> None:
    from roomcast_cli._enums import DELIVERY_STATUSES
    from roomcast_cli.render.text import FINAL_STATUSES, IN_FLIGHT_STATUSES

    # Then: its statuses on their way are the API's (a renamed one fails here), the rest final
    assert set(DELIVERY_STATUSES) > IN_FLIGHT_STATUSES
    assert set(DELIVERY_STATUSES) - IN_FLIGHT_STATUSES == FINAL_STATUSES
    assert {"delivered", "dead", "expired", "cleared", "cancelled", "aborted"} <= FINAL_STATUSES


def test_an_older_sdk_reads_a_status_it_does_not_know_and_fields_left_out() -> None:
    from roomcast_client import Delivery, MessageStatus

    # Given: a message as a newer API might answer it: a new status, optional fields left out
    answer = {
        "messageId": "msg_1",
        "roomId": "room_1",
        "eventType": "order.created",
        "eventVersion": "1",
        "correlationId": "c",
        "publishedAt": "2026-11-22T10:00:00.000Z",
        "deliveries": [
            {
                "subscriptionId": "sub_1",
                "subscriptionType": "PUSH",
                "status": "parked",
                "attempts": 1,
                "updatedAt": "2026-11-22T10:00:00.000Z",
            }
        ],
    }

    # When
    message = MessageStatus.model_validate(answer)

    # Then
    assert message.deliveries[0].status == "parked"
    assert (message.payload, message.expires_at, message.destinations) == (None, None, [])
    assert isinstance(message.deliveries[0], Delivery)
    assert message.deliveries[0].last_error is None


def test_the_models_read_answers_without_bounds_and_keep_the_fields_they_do_not_know() -> None:
    from roomcast_client import Subscription

    # Given: a subscription whose override is past today's bound, and a field from a newer API
    answer = {
        "id": "sub_1",
        "roomId": "room_1",
        "type": "PUSH",
        "status": "active",
        "eventTypes": [],
        "deliveryAttempts": 500,
        "colour": "blue",
        "createdAt": "t",
        "updatedAt": "t",
    }

    # When
    subscription = Subscription.model_validate(answer)

    # Then
    assert subscription.delivery_attempts == 500
    assert subscription.model_dump(mode="json", by_alias=True, exclude_defaults=True)["colour"] == "blue"


def test_the_document_the_sdk_reads_holds_the_answers_and_the_webhook_body_only() -> None:
    # When
    schemas = sdk_document(DOCUMENT)["components"]["schemas"]

    # Then: answers (and what they refer to), not requests; the any-JSON value inlined
    assert {"RoomResponse", "MessageStatus", "DeliveryView", "ErrorBody", "WebhookMessage"} <= set(schemas)
    assert not {"RoomCreate", "PublishRequest", "FilterPolicy", "JsonValue"} & set(schemas)
    assert "enum" not in schemas["DeliveryView"]["properties"]["status"]
    assert schemas["SubscriptionResponse"]["properties"]["status"]["enum"] == ["active", "paused", "disabled"]


def test_an_enumeration_the_document_gains_stops_the_generation_until_it_is_named() -> None:
    # Given: the document with a new enumeration in an answer
    document = copy.deepcopy(DOCUMENT)
    properties = document["components"]["schemas"]["RoomResponse"]["properties"]
    properties["tier"] = {"type": "string", "enum": ["free", "paid"]}

    # When / Then
    with pytest.raises(contract_enums.StaleDocumentError, match="RoomResponse/properties/tier"):
        contract_enums.enumerations(document)


def test_an_enumeration_whose_copies_differ_stops_the_generation() -> None:
    # Given: a status added to one answer's delivery status and not to the other's
    document = copy.deepcopy(DOCUMENT)
    document["components"]["schemas"]["DeliveryItem"]["properties"]["status"]["enum"].append("parked")

    # When / Then
    with pytest.raises(contract_enums.StaleDocumentError, match="DeliveryItem/properties/status"):
        contract_enums.enumerations(document)


def test_an_answer_that_is_another_and_more_is_read_as_a_model_extending_the_other() -> None:
    # Given: the SDK's models, which callers have always checked with isinstance
    from roomcast_client import (
        BatchAccepted,
        Delivery,
        DeliveryItem,
        PublishBatchResult,
        PublishResult,
        Subscription,
        SubscriptionCreated,
    )

    # When: a batch answer with an accepted and a refused message
    batch = PublishBatchResult.model_validate(
        {
            "results": [
                {"status": 202, "messageId": "m", "correlationId": "c", "publishedAt": "2026-01-01T00:00Z"},
                {"status": 422, "error": {"code": "invalid_request", "message": "no"}},
            ],
            "failedCount": 1,
        }
    )

    # Then
    assert issubclass(BatchAccepted, PublishResult)
    assert issubclass(SubscriptionCreated, Subscription)
    assert issubclass(DeliveryItem, Delivery)
    assert [isinstance(result, PublishResult) for result in batch.results] == [True, False]


def test_an_answer_that_no_longer_extends_the_other_stops_the_generation() -> None:
    # Given: the batch's accepted message typed apart from the publish answer
    document = copy.deepcopy(DOCUMENT)
    document["components"]["schemas"]["PublishBatchAccepted"]["properties"]["messageId"] = {"type": "integer"}

    # When / Then
    with pytest.raises(contract_enums.StaleDocumentError, match="PublishBatchAccepted no longer extends"):
        sdk_document(document)
