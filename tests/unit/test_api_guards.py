"""The body guard every API function runs before its resolver (``json_body_required``): what it
refuses, with which status and code, and that a good body passes unchanged in meaning."""

from __future__ import annotations

import json
from typing import Any

import pytest

from roomcast.api.guards import json_body_required
from tests.support import api_event


def _post(body: str, content_type: str = "application/json") -> dict[str, Any]:
    event = api_event("POST", "/rooms", headers={"content-type": content_type})
    event["body"] = body
    return event


def _error(response: dict[str, Any] | None) -> dict[str, Any]:
    assert response is not None, "the body was accepted"
    error: dict[str, Any] = json.loads(response["body"])["error"]
    return error


@pytest.mark.parametrize(
    ("body", "where"),
    [
        pytest.param('{"name": "\\ud800"}', "body.name", id="string"),
        pytest.param('{"payload": {"\\uDFFF": 1}}', "body.payload (a key)", id="key"),
    ],
)
def test_a_lone_surrogate_is_a_422_invalid_text_naming_where(body: str, where: str) -> None:
    # When
    error = _error(json_body_required(_post(body)))

    # Then
    assert error["code"] == "invalid_text"
    assert error["message"].startswith(f"{where} holds a lone UTF-16 surrogate")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param('{"name": "caf\\u00e9 \\ud83d\\ude00"}', id="escapes-and-a-pair"),
        pytest.param('{"name": "\\\\ud800"}', id="an-escaped-backslash-before-ud800"),
    ],
)
def test_escapes_that_are_text_pass(body: str) -> None:
    # When
    response = json_body_required(_post(body))

    # Then
    assert response is None


@pytest.mark.parametrize("body", ['{"name": "x",', '{"name": 1}}', "[" * 100_000 + "]" * 100_000])
def test_json_that_does_not_parse_is_still_malformed_json(body: str) -> None:
    # When
    response = json_body_required(_post(body))

    # Then
    assert response is not None
    assert response["statusCode"] == 400
    assert _error(response)["code"] == "malformed_json"
