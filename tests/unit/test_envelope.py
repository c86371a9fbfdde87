"""The delivery envelope: what travels on SQS for one message to one destination."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from roomcast.messages.envelope import ENVELOPE_VERSION, Envelope, EnvelopeError, first_envelope
from roomcast.messages.model import Message

PUBLISHED_AT_MS = 1_700_000_000_000


def _envelope(payload: Any = None) -> Envelope:
    return Envelope(
        message_id="msg_1",
        tenant_id="tenant_1",
        room_id="room_1",
        subscription_id="sub_1",
        event_type="order.created",
        event_version="1",
        correlation_id="corr_1",
        published_at="2023-11-14T22:13:20Z",
        published_at_ms=PUBLISHED_AT_MS,
        expires_at_ms=PUBLISHED_AT_MS + 60_000,
        attempt=0,
        due_at_ms=PUBLISHED_AT_MS,
        next_delay_ms=0,
        payload={"order": 42} if payload is None else payload,
    )


def _body(**changes: Any) -> str:
    """A valid envelope body, with top-level keys changed (a value of ... removes the key)."""
    raw: dict[str, Any] = {"v": ENVELOPE_VERSION, **asdict(_envelope())}
    for key, value in changes.items():
        if value is ...:
            del raw[key]
        else:
            raw[key] = value
    return json.dumps(raw)


# --- round trip --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({"order": {"id": 42, "lines": [1, 2.5, None, True]}}, id="object"),
        pytest.param([1, "two", {"three": 3}], id="list"),
        pytest.param("just a string", id="string"),
        pytest.param(42, id="integer"),
        pytest.param(-0.125, id="float"),
        pytest.param(2**70, id="big-integer"),
        pytest.param(False, id="boolean"),
        pytest.param({"emoji": "🎉", "名前": ["ünïcødé", {"κλειδί": '\u0000\t\n"\\'}]}, id="nested-unicode"),
        pytest.param({}, id="empty-object"),
        pytest.param([], id="empty-list"),
        pytest.param("", id="empty-string"),
    ],
)
def test_envelope_round_trips_through_json(payload: Any) -> None:
    # Given
    envelope = _envelope(payload)

    # When
    restored = Envelope.from_json(envelope.to_json())

    # Then
    assert restored == envelope


def test_envelope_with_null_payload_round_trips_through_json() -> None:
    # Given
    envelope = replace(_envelope(), payload=None)

    # When
    restored = Envelope.from_json(envelope.to_json())

    # Then
    assert restored == envelope
    assert restored.payload is None


def test_envelope_with_optional_fields_set_round_trips_through_json() -> None:
    # Given
    envelope = replace(_envelope(), expires_at_ms=None, hops=3, origin_subscription_id="sub_primary")

    # When
    restored = Envelope.from_json(envelope.to_json())

    # Then
    assert restored == envelope


def test_envelope_json_is_compact_and_carries_its_version() -> None:
    # When
    body = _envelope().to_json()

    # Then
    assert json.loads(body)["v"] == ENVELOPE_VERSION
    assert ", " not in body
    assert ": " not in body


JSON_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    JSON_SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(payload=JSON_VALUES, hops=st.integers(min_value=0, max_value=1_000), message_id=st.text())
def test_any_json_payload_round_trips_through_json(payload: Any, hops: int, message_id: str) -> None:
    # Given
    envelope = replace(_envelope(), payload=payload, hops=hops, message_id=message_id)

    # When
    restored = Envelope.from_json(envelope.to_json())

    # Then
    assert restored == envelope


# --- refusals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "version",
    [
        pytest.param(2, id="newer"),
        pytest.param(0, id="zero"),
        pytest.param("1", id="string"),
        pytest.param(None, id="null"),
        pytest.param(..., id="missing"),
        pytest.param(True, id="true"),
        pytest.param(1.0, id="float"),
    ],
)
def test_body_of_another_envelope_version_is_refused(version: object) -> None:
    # Given
    body = _body(v=version)

    # When / Then
    with pytest.raises(EnvelopeError, match="not a roomcast envelope"):
        Envelope.from_json(body)


@pytest.mark.parametrize("body", ["[]", "[1, 2]", '"envelope"', "1", "null", "true"])
def test_json_that_is_not_an_object_is_refused(body: str) -> None:
    # When / Then
    with pytest.raises(EnvelopeError, match="not a roomcast envelope"):
        Envelope.from_json(body)


@pytest.mark.parametrize("field", ["message_id", "payload", "due_at_ms", "attempt", "expires_at_ms"])
def test_body_missing_a_field_is_refused(field: str) -> None:
    # Given
    body = _body(**{field: ...})

    # When / Then
    with pytest.raises(EnvelopeError, match=field):
        Envelope.from_json(body)


def test_body_with_an_unknown_field_is_refused() -> None:
    # Given
    body = _body(priority="high")

    # When / Then
    with pytest.raises(EnvelopeError, match="priority"):
        Envelope.from_json(body)


@pytest.mark.parametrize("body", ["", "   ", "not json", "{", '{"v": 1,}', "{'v': 1}", "NaN-ish"])
def test_garbage_is_refused(body: str) -> None:
    # When / Then
    with pytest.raises(EnvelopeError, match="not a roomcast envelope"):
        Envelope.from_json(body)


def test_envelope_error_is_a_value_error() -> None:
    # When / Then
    assert issubclass(EnvelopeError, ValueError)


def test_deeply_nested_garbage_is_refused() -> None:
    # Given: well inside SQS's 256 KiB body limit
    body = "[" * 100_000 + "]" * 100_000

    # When / Then
    with pytest.raises(EnvelopeError):
        Envelope.from_json(body)


# --- the first delivery -----------------------------------------------------------------------------


def test_first_envelope_is_attempt_0_due_at_publish_with_the_message_payload() -> None:
    # Given
    message = Message(
        id="msg_1",
        tenant_id="tenant_1",
        room_id="room_1",
        event_type="order.created",
        event_version="1",
        correlation_id="corr_1",
        payload={"order": 42},
        published_at="2023-11-14T22:13:20Z",
        published_at_ms=PUBLISHED_AT_MS,
        expires_at_ms=PUBLISHED_AT_MS + 60_000,
        destinations=("sub_1", "sub_2"),
    )

    # When
    envelope = first_envelope(message, "sub_1")

    # Then
    assert envelope == _envelope()


# --- the next attempt and hops -----------------------------------------------------------------------


def test_next_attempt_sets_attempt_delay_and_due_time() -> None:
    # Given
    envelope = _envelope()

    # When
    retried = envelope.next_attempt(attempt=2, delay_ms=4_000, due_at_ms=PUBLISHED_AT_MS + 7_000)

    # Then
    assert (retried.attempt, retried.next_delay_ms, retried.due_at_ms) == (2, 4_000, PUBLISHED_AT_MS + 7_000)


def test_next_attempt_resets_hops() -> None:
    # Given
    envelope = replace(_envelope(), hops=5)

    # When
    retried = envelope.next_attempt(attempt=1, delay_ms=1_000, due_at_ms=PUBLISHED_AT_MS + 1_000)

    # Then
    assert retried.hops == 0


def test_next_attempt_keeps_the_message_and_its_payload() -> None:
    # Given
    envelope = replace(_envelope(), origin_subscription_id="sub_primary")

    # When
    retried = envelope.next_attempt(attempt=1, delay_ms=1_000, due_at_ms=PUBLISHED_AT_MS + 1_000)

    # Then
    assert replace(retried, attempt=0, next_delay_ms=0, due_at_ms=PUBLISHED_AT_MS) == envelope


def test_hop_increments_hops() -> None:
    # Given
    envelope = replace(_envelope(), attempt=3, hops=2)

    # When
    hopped = envelope.hop(attempt=3)

    # Then
    assert hopped.hops == 3


def test_hop_keeps_payload_delay_and_due_time() -> None:
    # Given
    envelope = _envelope({"big": list(range(10))}).next_attempt(3, 900_000, PUBLISHED_AT_MS + 2_000_000)

    # When
    hopped = envelope.hop(attempt=3)

    # Then
    assert replace(hopped, hops=0) == envelope


def test_hop_does_not_change_the_original() -> None:
    # Given
    envelope = _envelope()

    # When
    envelope.hop(attempt=0)

    # Then
    assert envelope.hops == 0
