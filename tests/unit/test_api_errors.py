"""The API's one JSON error shape, built from request validation errors."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from pydantic import TypeAdapter, ValidationError

from management_api.rooms.models import RoomCreate
from management_api.subscriptions.models import (
    PullSubscriptionCreate,
    PushSubscriptionCreate,
    SubscriptionCreate,
)
from roomcast.api.errors import ROOM_OWNER_ONLY, allowed_methods, validation_error_response
from tests.support import FakeLambdaContext, api_event

SUBSCRIPTION = TypeAdapter[PushSubscriptionCreate | PullSubscriptionCreate](SubscriptionCreate)


def _body_errors(error: ValidationError) -> list[dict[str, Any]]:
    """Errors as powertools hands them to the exception handler: located under ``body``."""
    return [{**e, "loc": ("body", *e["loc"])} for e in error.errors()]


def _errors_of(validate: Any, data: Any) -> list[dict[str, Any]]:
    try:
        validate(data)
    except ValidationError as error:
        return _body_errors(error)
    raise AssertionError(f"{data!r} was accepted")


JSON_INVALID = {
    "type": "json_invalid",
    "loc": ("body", 7),
    "msg": "JSON decode error",
    "input": {},
    "ctx": {"error": "Expecting value"},
}


def test_malformed_json_is_a_400_malformed_json_on_the_body() -> None:
    # When
    response = validation_error_response([JSON_INVALID])

    # Then
    assert response.status_code == 400
    body: Any = response.body
    assert body["error"]["code"] == "malformed_json"
    assert body["error"]["details"] == [
        {"field": "body", "problem": "request body is not valid JSON", "type": "json_invalid"}
    ]


def test_malformed_json_at_offset_zero_is_still_reported_on_the_body() -> None:
    # When
    response = validation_error_response([{**JSON_INVALID, "loc": ("body", 0)}])

    # Then
    body: Any = response.body
    assert body["error"]["details"][0]["field"] == "body"


def test_message_expiration_on_a_subscription_explains_that_only_the_room_owner_sets_it() -> None:
    # Given
    errors = _errors_of(SUBSCRIPTION.validate_python, {"type": "PULL", "messageExpirationMs": 1_000})

    # When
    response = validation_error_response(errors)

    # Then
    assert response.status_code == 422
    body: Any = response.body
    assert body["error"]["details"] == [
        {"field": "body.messageExpirationMs", "problem": ROOM_OWNER_ONLY, "type": "extra_forbidden"}
    ]
    assert "room owner" in body["error"]["message"]


def test_other_unknown_field_keeps_pydantic_problem_text() -> None:
    # Given
    errors = _errors_of(RoomCreate.model_validate, {"name": "x", "colour": "blue"})

    # When
    response = validation_error_response(errors)

    # Then
    body: Any = response.body
    assert body["error"]["details"] == [
        {"field": "body.colour", "problem": "Extra inputs are not permitted", "type": "extra_forbidden"}
    ]


def test_field_errors_give_422_with_one_detail_per_error() -> None:
    # Given
    errors = _errors_of(RoomCreate.model_validate, {"name": "", "deliveryAttempts": "5"})

    # When
    response = validation_error_response(errors)

    # Then
    assert response.status_code == 422
    body: Any = response.body
    assert body["error"]["code"] == "validation_error"
    assert [(d["field"], d["type"]) for d in body["error"]["details"]] == [
        ("body.name", "string_too_short"),
        ("body.deliveryAttempts", "int_type"),
    ]
    assert all(set(d) == {"field", "problem", "type"} for d in body["error"]["details"])


def test_nested_field_path_is_dotted() -> None:
    # Given
    errors = _errors_of(
        RoomCreate.model_validate, {"name": "x", "eventTypes": [{"name": "a", "versions": ["v1"]}]}
    )

    # When
    response = validation_error_response(errors)

    # Then
    body: Any = response.body
    assert body["error"]["details"][0]["field"] == "body.eventTypes.0.versions.0"


def test_discriminator_tag_is_left_out_of_the_field_path() -> None:
    # Given
    errors = _errors_of(SUBSCRIPTION.validate_python, {"type": "PUSH"})

    # When
    response = validation_error_response(errors)

    # Then
    body: Any = response.body
    assert body["error"]["details"] == [
        {"field": "body.pushUrl", "problem": "Field required", "type": "missing"}
    ]


def test_unknown_subscription_type_says_which_types_exist() -> None:
    # Given
    errors = _errors_of(SUBSCRIPTION.validate_python, {"type": "WEBHOOK"})

    # When
    response = validation_error_response(errors)

    # Then
    body: Any = response.body
    assert body["error"]["details"] == [
        {"field": "body", "problem": "type must be PUSH or PULL", "type": "union_tag_invalid"}
    ]


def test_missing_subscription_type_says_it_is_required() -> None:
    # Given
    errors = _errors_of(SUBSCRIPTION.validate_python, {})

    # When
    response = validation_error_response(errors)

    # Then
    body: Any = response.body
    assert body["error"]["details"][0]["problem"] == "type is required (PUSH or PULL)"


def test_message_summarises_at_most_five_problems_but_details_list_all() -> None:
    # Given
    errors = [
        {"type": "missing", "loc": ("body", f"field{n}"), "msg": "Field required", "input": {}}
        for n in range(7)
    ]

    # When
    response = validation_error_response(errors)

    # Then
    body: Any = response.body
    assert len(body["error"]["details"]) == 7
    assert body["error"]["message"].count("Field required") == 5
    assert body["error"]["message"].startswith("body.field0: Field required; body.field1")


def test_allowed_methods_are_every_route_matching_the_path() -> None:
    # Given
    app = APIGatewayHttpResolver()
    app.get("/rooms")(lambda: {})
    app.post("/rooms")(lambda: {})
    app.delete("/rooms/<roomId>")(lambda roomId: {})

    # When / Then
    assert allowed_methods(app, "/rooms") == ["GET", "POST"]
    assert allowed_methods(app, "/rooms/r1") == ["DELETE"]
    assert allowed_methods(app, "/other") == []


def test_a_more_specific_route_of_another_function_hides_this_ones_on_its_path() -> None:
    # Given: this function reads a message by id; another publishes batches at .../messages/batch
    app = APIGatewayHttpResolver()
    app.get("/rooms/<roomId>/messages")(lambda roomId: {})
    app.get("/rooms/<roomId>/messages/<messageId>")(lambda roomId, messageId: {})
    elsewhere = [("POST", "/rooms/{roomId}/messages"), ("POST", "/rooms/{roomId}/messages/batch")]

    # When / Then: as API Gateway routes, the batch path is the other function's alone
    assert allowed_methods(app, "/rooms/r1/messages", elsewhere) == ["GET", "POST"]
    assert allowed_methods(app, "/rooms/r1/messages/batch", elsewhere) == ["POST"]
    assert allowed_methods(app, "/rooms/r1/messages/msg_1", elsewhere) == ["GET"]


def test_a_request_this_function_gets_for_a_path_served_elsewhere_is_405() -> None:
    # Given: the management function, which API Gateway sends every method but POST on this path
    from management_api.handler import app

    event = api_event("GET", "/rooms/room_0123456789abcdef0123456789abcdef/messages/batch")

    # When
    response = app.resolve(event, FakeLambdaContext())  # type: ignore[arg-type]

    # Then
    assert response["statusCode"] == 405
    assert response["headers"]["Allow"] == "POST"


def test_push_only_fields_on_a_pull_create_alone_are_a_400_push_only_naming_each() -> None:
    # Given
    errors = _errors_of(
        SUBSCRIPTION.validate_python, {"type": "PULL", "maxConcurrency": 2, "rateLimitPerSecond": 1}
    )

    # When
    response = validation_error_response(errors)

    # Then
    assert response.status_code == 400
    body: Any = response.body
    assert body["error"]["code"] == "push_only"
    assert body["error"]["details"] == [
        {"field": f"body.{name}", "problem": "applies to PUSH subscriptions only", "type": "push_only"}
        for name in ("maxConcurrency", "rateLimitPerSecond")
    ]


def test_push_only_fields_beside_other_problems_are_one_422_listing_all() -> None:
    # Given
    errors = _errors_of(SUBSCRIPTION.validate_python, {"type": "PULL", "maxConcurrency": 2, "ackWaitMs": 1})

    # When
    response = validation_error_response(errors)

    # Then
    assert response.status_code == 422
    body: Any = response.body
    assert body["error"]["code"] == "validation_error"
    assert {d["type"] for d in body["error"]["details"]} == {"greater_than_equal", "push_only"}
