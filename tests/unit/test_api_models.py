"""Request models of the management API: strict, bounded, and the subscription union."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from jsonschema_rs import Draft202012Validator
from pydantic import TypeAdapter, ValidationError

from management_api.dead_letters.models import ReplayRequest
from management_api.rooms.models import RoomCreate, RoomPatch
from management_api.subscriptions.models import (
    PullSubscriptionCreate,
    PushSubscriptionCreate,
    SubscriptionCreate,
    SubscriptionPatch,
)
from roomcast.platform import limits

REPOSITORY = Path(__file__).resolve().parents[2]
SUBSCRIPTION = TypeAdapter[PushSubscriptionCreate | PullSubscriptionCreate](SubscriptionCreate)
PUSH_URL = "https://hooks.example.com/in"


def _error_types(error: ValidationError) -> set[tuple[tuple[int | str, ...], str]]:
    return {(tuple(e["loc"]), e["type"]) for e in error.errors()}


def _room(**fields: Any) -> RoomCreate:
    return RoomCreate.model_validate({"name": "orders", **fields})


# -- rooms ----------------------------------------------------------------------------------------


def test_room_create_fills_the_documented_defaults() -> None:
    # When
    room = RoomCreate.model_validate({"name": "orders"})

    # Then
    assert room.messageExpirationMs is None
    assert room.deliveryDelayMs == 1_000
    assert room.deliveryDelayMultiplier == 2.0
    assert room.deliveryAttempts == 5
    assert room.eventTypes == []


def test_room_create_accepts_every_field_at_its_bounds() -> None:
    # When
    room = _room(
        messageExpirationMs=limits.MAX_MESSAGE_EXPIRATION_MS,
        deliveryDelayMs=0,
        deliveryDelayMultiplier=1,
        deliveryAttempts=limits.MAX_DELIVERY_ATTEMPTS,
        eventTypes=[{"name": "order.created", "versions": ["1", "2.1", "3.0.0.1"]}],
    )

    # Then
    assert room.deliveryDelayMultiplier == 1.0
    assert room.eventTypes[0].versions == ["1", "2.1", "3.0.0.1"]


def test_room_create_requires_a_name() -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        RoomCreate.model_validate({})

    # Then
    assert _error_types(refused.value) == {(("name",), "missing")}


@pytest.mark.parametrize(
    ("field", "value", "error_type"),
    [
        ("deliveryDelayMs", "1000", "int_type"),
        ("deliveryDelayMs", True, "int_type"),
        ("deliveryDelayMs", 1000.5, "int_type"),
        ("deliveryAttempts", "5", "int_type"),
        ("deliveryAttempts", False, "int_type"),
        ("deliveryDelayMultiplier", "2", "float_type"),
        ("deliveryDelayMultiplier", True, "float_type"),
        ("messageExpirationMs", "60000", "int_type"),
        ("name", 42, "string_type"),
    ],
)
def test_room_create_refuses_values_of_the_wrong_json_type(
    field: str, value: object, error_type: str
) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(**{field: value})

    # Then
    assert (field,) in {loc for loc, _ in _error_types(refused.value)}
    assert error_type in {kind for _, kind in _error_types(refused.value)}


def test_room_create_refuses_an_unknown_field() -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(colour="blue")

    # Then
    assert _error_types(refused.value) == {(("colour",), "extra_forbidden")}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("deliveryDelayMultiplier", 0.99),
        ("deliveryDelayMultiplier", limits.MAX_DELIVERY_DELAY_MULTIPLIER + 0.01),
        ("deliveryDelayMultiplier", float("inf")),
        ("deliveryDelayMultiplier", float("nan")),
        ("deliveryAttempts", -1),
        ("deliveryAttempts", limits.MAX_DELIVERY_ATTEMPTS + 1),
        ("deliveryDelayMs", -1),
        ("deliveryDelayMs", limits.MAX_DELIVERY_DELAY_MS + 1),
        ("messageExpirationMs", -1),
        ("messageExpirationMs", limits.MAX_MESSAGE_EXPIRATION_MS + 1),
        ("name", ""),
        ("name", "x" * (limits.MAX_NAME_LENGTH + 1)),
    ],
)
def test_room_create_refuses_values_out_of_bounds(field: str, value: object) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(**{field: value})

    # Then
    assert [e["loc"] for e in refused.value.errors()] == [(field,)]


def test_zero_expiration_is_accepted() -> None:
    # When
    room = _room(messageExpirationMs=0)

    # Then
    assert room.messageExpirationMs == 0


def test_duplicate_event_type_names_are_refused() -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(eventTypes=[{"name": "order.created"}, {"name": "order.void"}, {"name": "order.created"}])

    # Then
    assert _error_types(refused.value) == {(("eventTypes",), "duplicate_event_types")}
    assert "repeated: order.created" in str(refused.value)


def test_duplicate_versions_of_one_event_type_are_refused() -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(eventTypes=[{"name": "order.created", "versions": ["1", "2", "1"]}])

    # Then
    assert _error_types(refused.value) == {(("eventTypes", 0, "versions"), "value_error")}
    assert "repeated: 1" in str(refused.value)


@pytest.mark.parametrize("version", ["v1", "1..2", "1.", ".1", "", "1.2.3.4.5", "1\n", "01-beta"])
def test_malformed_event_version_is_refused(version: str) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(eventTypes=[{"name": "order.created", "versions": [version]}])

    # Then
    assert _error_types(refused.value) == {(("eventTypes", 0, "versions", 0), "string_pattern_mismatch")}


@pytest.mark.parametrize("name", ["", ".hidden", "has space", "tab\t", "order.created\n"])
def test_malformed_event_type_name_is_refused(name: str) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        _room(eventTypes=[{"name": name}])

    # Then
    assert {loc for loc, _ in _error_types(refused.value)} == {("eventTypes", 0, "name")}


def test_too_many_event_types_are_refused() -> None:
    # Given
    event_types = [{"name": f"type{n}"} for n in range(limits.MAX_EVENT_TYPES + 1)]

    # When
    with pytest.raises(ValidationError) as refused:
        _room(eventTypes=event_types)

    # Then
    assert _error_types(refused.value) == {(("eventTypes",), "too_long")}


def test_room_patch_with_nothing_set_is_valid_and_empty() -> None:
    # When
    patch = RoomPatch.model_validate({})

    # Then
    assert patch.model_dump(exclude_unset=True) == {}


# -- subscriptions --------------------------------------------------------------------------------


def test_push_subscription_is_chosen_by_its_type() -> None:
    # When
    subscription = SUBSCRIPTION.validate_python({"type": "PUSH", "pushUrl": PUSH_URL, "timeoutMs": 5_000})

    # Then
    assert isinstance(subscription, PushSubscriptionCreate)
    assert subscription.pushUrl == PUSH_URL
    assert subscription.timeoutMs == 5_000


def test_pull_subscription_is_chosen_by_its_type() -> None:
    # When
    subscription = SUBSCRIPTION.validate_python({"type": "PULL", "ackWaitMs": 60_000})

    # Then
    assert isinstance(subscription, PullSubscriptionCreate)
    assert subscription.ackWaitMs == 60_000


def test_push_subscription_requires_a_push_url() -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python({"type": "PUSH"})

    # Then
    assert _error_types(refused.value) == {(("PUSH", "pushUrl"), "missing")}


@pytest.mark.parametrize(
    ("fields", "refused_field"),
    [
        ({"type": "PULL", "pushUrl": PUSH_URL}, "pushUrl"),
        ({"type": "PULL", "timeoutMs": 5_000}, "timeoutMs"),
        ({"type": "PUSH", "pushUrl": PUSH_URL, "ackWaitMs": 30_000}, "ackWaitMs"),
        ({"type": "PUSH", "pushUrl": PUSH_URL, "messageExpirationMs": 1_000}, "messageExpirationMs"),
        ({"type": "PULL", "messageExpirationMs": 1_000}, "messageExpirationMs"),
        ({"type": "PULL", "messageExpirationMs": None}, "messageExpirationMs"),
    ],
)
def test_subscription_refuses_a_field_of_the_other_type_or_of_the_room(
    fields: dict[str, Any], refused_field: str
) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python(fields)

    # Then
    assert _error_types(refused.value) == {((fields["type"], refused_field), "extra_forbidden")}


@pytest.mark.parametrize(
    "field", ["maxConcurrency", "rateLimitPerSecond", "disableAfterFailingMs", "transformation", "format"]
)
@pytest.mark.parametrize("value", [2, None])
def test_a_pull_subscription_refuses_a_push_only_field_with_a_type_of_its_own(
    field: str, value: object
) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python({"type": "PULL", field: value})

    # Then
    assert _error_types(refused.value) == {(("PULL", field), "push_only")}


def test_each_subscription_types_create_schema_documents_only_its_own_fields() -> None:
    # When
    push = set(PushSubscriptionCreate.model_json_schema()["properties"])
    pull_schema = PullSubscriptionCreate.model_json_schema()
    pull = set(pull_schema["properties"])

    # Then: a PULL body with a PUSH-only field is refused by the document too
    assert pull_schema["additionalProperties"] is False
    assert push - pull == {
        "pushUrl",
        "timeoutMs",
        "maxConcurrency",
        "rateLimitPerSecond",
        "disableAfterFailingMs",
        "recoveryProbes",
        "transformation",
        "format",
        "cloudEventsMode",
        "validationHandshake",
        "destination",
    }
    assert pull - push == {"ackWaitMs"}


@pytest.mark.parametrize(
    ("fields", "error_type"),
    [
        ({"type": "FOO"}, "union_tag_invalid"),
        ({}, "union_tag_not_found"),
        ({"type": "push"}, "union_tag_invalid"),
    ],
)
def test_subscription_without_a_known_type_is_refused(fields: dict[str, Any], error_type: str) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python(fields)

    # Then
    assert _error_types(refused.value) == {((), error_type)}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timeoutMs", limits.MIN_PUSH_TIMEOUT_MS - 1),
        ("timeoutMs", limits.MAX_PUSH_TIMEOUT_MS + 1),
        ("jitter", -0.01),
        ("jitter", 1.01),
        ("maxDelayMs", limits.MIN_MAX_DELAY_MS - 1),
        ("retryScheduleMs", []),
        ("retryScheduleMs", [-1]),
        ("retryScheduleMs", [0] * (limits.MAX_RETRY_SCHEDULE_LENGTH + 1)),
        ("deliveryDelayMultiplier", 0.5),
        ("deliveryAttempts", 51),
        ("failoverSubscriptionId", ""),
        ("pushUrl", "https://h/" + "x" * limits.MAX_PUSH_URL_LENGTH),
    ],
)
def test_push_subscription_refuses_overrides_out_of_bounds(field: str, value: object) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python({"type": "PUSH", "pushUrl": PUSH_URL, field: value})

    # Then
    assert {loc[:2] for loc, _ in _error_types(refused.value)} == {("PUSH", field)}


@pytest.mark.parametrize("ack_wait_ms", [limits.MIN_ACK_WAIT_MS - 1, limits.MAX_ACK_WAIT_MS + 1])
def test_pull_subscription_refuses_ack_wait_out_of_bounds(ack_wait_ms: int) -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python({"type": "PULL", "ackWaitMs": ack_wait_ms})

    # Then
    assert {loc for loc, _ in _error_types(refused.value)} == {("PULL", "ackWaitMs")}


def test_subscription_patch_refuses_message_expiration() -> None:
    # When
    with pytest.raises(ValidationError) as refused:
        SubscriptionPatch.model_validate({"messageExpirationMs": 1_000})

    # Then
    assert _error_types(refused.value) == {(("messageExpirationMs",), "extra_forbidden")}


def test_subscription_patch_keeps_explicit_nulls_apart_from_absent_fields() -> None:
    # When
    patch = SubscriptionPatch.model_validate({"jitter": None, "deliveryAttempts": 2})

    # Then
    assert patch.model_dump(exclude_unset=True) == {"jitter": None, "deliveryAttempts": 2}


def test_an_integral_number_is_an_integer_as_in_json_schema() -> None:
    # When: JSON has one number type; 1000.0 is the number 1000
    room = _room(deliveryDelayMs=1000.0, deliveryAttempts=3.0)

    # Then
    assert (room.deliveryDelayMs, room.deliveryAttempts) == (1000, 3)
    assert type(room.deliveryDelayMs) is int


# -- dead-letter replay ---------------------------------------------------------------------------

SINCE = "2026-11-22T10:00:00Z"


@pytest.mark.parametrize(
    ("body", "accepted"),
    [
        ({}, True),
        ({"messageIds": ["msg_1"]}, True),
        ({"since": SINCE, "until": SINCE}, True),
        ({"messageIds": ["msg_1"], "since": None, "until": None}, True),
        ({"messageIds": None, "since": SINCE}, True),
        ({"messageIds": ["msg_1"], "since": SINCE}, False),
        ({"messageIds": ["msg_1"], "until": SINCE}, False),
        ({"messageIds": ["msg_1"], "since": SINCE, "until": SINCE}, False),
    ],
)
def test_the_replay_schema_says_ids_and_a_window_exclude_each_other_as_the_model_does(
    body: dict[str, Any], accepted: bool
) -> None:
    # Given
    schema = Draft202012Validator(ReplayRequest.model_json_schema())

    # When
    try:
        ReplayRequest.model_validate_json(json.dumps(body))
        refused_by_model = set()
    except ValidationError as error:
        refused_by_model = {e["type"] for e in error.errors()}

    # Then: the document and the API agree, and the API's refusal keeps its own type
    assert schema.is_valid(body) is accepted
    assert refused_by_model == (set() if accepted else {"exclusive_fields"})


# -- delivery statuses ------------------------------------------------------------------------------


def test_every_delivery_status_is_documented_where_the_api_names_one() -> None:
    from management_api.messages.models import DeliveryStatusName
    from roomcast.messages.model import DeliveryStatus
    from roomcast_cli._enums import DELIVERY_STATUSES

    documented = set(get_args(DeliveryStatusName))
    assert documented == {status.value for status in DeliveryStatus}
    # The clients' lists are generated from openapi.json (make sdk-models; test_generated_clients.py).
    assert documented == set(DELIVERY_STATUSES)
    console = (REPOSITORY / "functions/docs/api_docs/console/enums.js").read_text(encoding="utf-8")
    (line,) = [line for line in console.splitlines() if line.startswith("export const DELIVERY_STATUSES ")]
    assert set(json.loads(line.partition("Object.freeze(")[2].removesuffix(");"))) == documented


@pytest.mark.parametrize("field", ["ordered", "onDeadKey"])
def test_ordering_fields_may_be_absent_but_not_null(field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        SUBSCRIPTION.validate_python({"type": "PULL", field: None})
    assert ((field,), "null_not_allowed") in {
        (tuple(e["loc"])[-1:], e["type"]) for e in refused.value.errors()
    }
    with pytest.raises(ValidationError):
        SubscriptionPatch.model_validate({field: None})


def test_a_schema_nested_past_pydantics_depth_reaches_roomcasts_own_check() -> None:
    # Given: a schema 600 levels deep (pydantic's own JSON type stops near 255)
    from management_api.event_types.models import EventTypeCreate

    deep: dict[str, Any] = {}
    for _ in range(600):
        deep = {"items": deep}

    # Then: the request model takes it, so the catalog's check answers 400 invalid_schema
    assert EventTypeCreate.model_validate({"name": "x", "schemas": {"1": deep}}).schemas["1"] == deep


@pytest.mark.parametrize(
    ("condition", "field", "kept"),
    [
        ({"metric": "p95AttemptLatencyMs", "above": 3.542172571548995e-134}, "above", 0.0),
        ({"metric": "oldestBacklogAgeMs", "above": 1.23456789}, "above", 1.234568),
        ({"metric": "successRate", "below": 0.99951}, "below", 0.99951),
    ],
)
def test_an_alert_threshold_is_kept_to_what_the_table_can_store(
    condition: dict[str, Any], field: str, kept: float
) -> None:
    # DynamoDB stores no number of magnitude below 1e-130: the fuzzer's 3.5e-134 made a PATCH 500.
    from management_api.alerts.models import ConditionModel
    from roomcast.platform import items

    parsed = TypeAdapter[Any](ConditionModel).validate_python(condition)
    assert getattr(parsed, field) == kept
    assert items.to_attributes({"v": getattr(parsed, field)})["v"] == {"N": str(kept)}
