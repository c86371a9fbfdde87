"""CloudEvents over HTTP (roomcast.webhooks.cloudevents) read back with the CNCF SDK, and the
validation handshake's rules (roomcast.webhooks.handshake) against scripted answers."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest
from cloudevents.core.bindings.http import HTTPMessage, from_binary, from_structured
from cloudevents.core.formats.json import JSONFormat
from hypothesis import given, strategies as st

from roomcast.webhooks.answers import HttpResult
from roomcast.webhooks.cloudevents import CloudEvent, binary, percent_encoded, structured
from roomcast.webhooks.handshake import HandshakeRefused, validation_handshake
from roomcast.webhooks.urls import PushUrlPolicy

EVENT = CloudEvent(
    "msg_1", "room_1", "order.created", "2026-11-28T10:00:00.000Z", {"note": "crème"}, "2", "sub_1", 3, "c 1%"
)


def test_a_structured_event_reads_back_with_the_sdk() -> None:
    body, headers = structured(EVENT)
    event = from_structured(HTTPMessage(headers=headers, body=body), JSONFormat())
    assert event.get_data() == {"note": "crème"}
    attributes = event.get_attributes()
    assert (attributes["id"], attributes["source"], attributes["eventversion"]) == (
        "msg_1",
        "/rooms/room_1",
        "2",
    )
    assert headers["content-type"] == "application/cloudevents+json; charset=utf-8"


def test_a_binary_event_reads_back_with_the_sdk_its_headers_percent_encoded() -> None:
    body, headers = binary(EVENT)
    assert headers["ce-correlationid"] == "c%201%25"
    event = from_binary(HTTPMessage(headers=headers, body=body), JSONFormat())
    assert event.get_attributes()["correlationid"] == "c 1%"
    assert event.get_data() == {"note": "crème"}


@given(st.text(max_size=40))
def test_a_percent_encoded_value_is_visible_ascii_and_decodes_to_itself(value: str) -> None:
    encoded = percent_encoded(value)
    assert all(0x21 <= ord(c) <= 0x7E and c != '"' for c in encoded)
    assert unquote(encoded, errors="strict") == value


class _Receiver:
    def __init__(self, result: HttpResult) -> None:
        self.result = result
        self.asked: list[dict[str, Any]] = []

    def __call__(self, url: str, body: bytes, headers: dict[str, str], *_: Any, **options: Any) -> HttpResult:
        self.asked.append({"url": url, "headers": headers, **options})
        return self.result


def _answer(status: int | None = 200, headers: dict[str, str] | None = None) -> HttpResult:
    return HttpResult(status, None, None if status else "connection refused", 3, "", headers=headers or {})


def test_a_receiver_that_names_the_origin_consents_with_its_rate() -> None:
    receiver = _Receiver(
        _answer(200, {"webhook-allowed-origin": "api.example", "webhook-allowed-rate": "90"})
    )
    consent = validation_handshake("https://h.example/x", "api.example", PushUrlPolicy(), 120, post=receiver)
    assert (consent.rate_per_minute, consent.rate_per_second) == (90, 1.5)
    (asked,) = receiver.asked
    assert asked["method"] == "OPTIONS"
    assert asked["headers"] == {"WebHook-Request-Origin": "api.example", "WebHook-Request-Rate": "120"}


def test_a_star_allows_every_origin_and_rate() -> None:
    receiver = _Receiver(_answer(200, {"webhook-allowed-origin": "*", "webhook-allowed-rate": "*"}))
    assert (
        validation_handshake(
            "https://h.example/x", "api.example", PushUrlPolicy(), post=receiver
        ).rate_per_second
        is None
    )


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (_answer(None), "no answer to OPTIONS (connection refused)"),
        (_answer(405), "OPTIONS answered HTTP 405"),
        (_answer(200), "the receiver answered no WebHook-Allowed-Origin, not 'api.example' or '*'"),
        (
            _answer(200, {"webhook-allowed-origin": "other.example"}),
            "the receiver answered 'other.example' WebHook-Allowed-Origin, not 'api.example' or '*'",
        ),
        (
            _answer(200, {"webhook-allowed-origin": "*", "webhook-allowed-rate": "-1"}),
            "WebHook-Allowed-Rate '-1' is neither a number of requests a minute nor '*'",
        ),
    ],
)
def test_a_receiver_that_does_not_consent_is_refused_naming_the_url(answer: HttpResult, problem: str) -> None:
    with pytest.raises(HandshakeRefused) as refused:
        validation_handshake("https://h.example/x", "api.example", PushUrlPolicy(), post=_Receiver(answer))
    assert refused.value.details == [
        {"field": "body.pushUrl", "problem": problem, "type": "handshake_refused"}
    ]
