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
    ("body", "where", "key"),
    [
        pytest.param('{"name": 1, "name": "x"}', "body", '"name"', id="top-level"),
        pytest.param('{"payload": {"a": {"b": 1, "c": 2, "b": 3}}}', "body.payload.a", '"b"', id="nested"),
        pytest.param('{"items": [{"k": 1}, {"k": 1, "k": 2}]}', "body.items.1", '"k"', id="in-a-list"),
        pytest.param('{"a": {"b": 1, "b": 2}, "a": 3}', "body", '"a"', id="dropped-by-its-parent"),
        pytest.param('{"x": {"é": 1, "é": 2}}', "body.x", '"é"', id="non-ascii"),
    ],
)
def test_an_object_naming_a_key_twice_is_a_400_duplicate_key_naming_the_key_and_where(
    body: str, where: str, key: str
) -> None:
    # Given
    event = _post(body)

    # When
    response = json_body_required(event)

    # Then
    assert response is not None
    assert response["statusCode"] == 400
    error = _error(response)
    assert error["code"] == "duplicate_key"
    assert error["message"].startswith(f"{where} names the key {key} more than once")
    assert error["details"] == [
        {"field": where, "problem": error["message"].removeprefix(f"{where} "), "type": "duplicate_key"}
    ]
    assert event["body"] == body  # nothing was handed on


def test_a_repeated_key_deep_in_the_deepest_body_the_parser_takes_is_found() -> None:
    # Given: nested as deep as the parser goes (it answers malformed_json deeper than this)
    depth = 500
    body = '{"a": ' * depth + '{"k": 1, "k": 2}' + "}" * depth

    # When
    error = _error(json_body_required(_post(body)))

    # Then
    assert error["code"] == "duplicate_key"
    assert error["message"].startswith("body" + ".a" * 40)  # the location, cut to 200 characters
    assert '"k"' in error["message"]


def test_the_same_key_in_different_objects_is_fine() -> None:
    # Given
    event = _post('{"name": "x", "eventTypes": [{"name": "a"}, {"name": "b"}]}')

    # When
    response = json_body_required(event)

    # Then
    assert response is None
    assert json.loads(event["body"]) == {"name": "x", "eventTypes": [{"name": "a"}, {"name": "b"}]}


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


@pytest.mark.parametrize(
    ("content_type", "charset"),
    [
        ("application/json; charset=utf-16", "utf-16"),
        ('application/json;charset="UTF-16LE"', "UTF-16LE"),
        ("application/json; charset=ISO-8859-1", "ISO-8859-1"),
        ("application/merge-patch+json; charset=latin1", "latin1"),
        ("application/json; charset=utf-8; charset=utf-16", "utf-16"),
    ],
)
def test_a_charset_other_than_utf8_is_a_415_naming_it(content_type: str, charset: str) -> None:
    # Given: a UTF-8 body declared in another charset
    event = _post('{"name": "x"}', content_type)

    # When
    response = json_body_required(event)

    # Then
    assert response is not None
    assert response["statusCode"] == 415
    error = _error(response)
    assert error["code"] == "unsupported_media_type"
    assert f"charset={charset}" in error["message"]
    assert "UTF-8" in error["message"]
    assert error["details"][0]["field"] == "header.content-type"
    assert error["details"][0]["type"] == "unsupported_charset"


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json; charset=utf-8",
        'application/json; charset="UTF-8"',
        "application/json;charset=utf8",
        "application/json; Charset = UTF-8",
        "application/json; profile=x",
        "application/vnd.api+json; charset=utf-8",
    ],
)
def test_utf8_or_no_charset_is_accepted(content_type: str) -> None:
    # Given
    event = _post('{"name": "x"}', content_type)

    # When
    response = json_body_required(event)

    # Then: handed on to powertools as plain JSON
    assert response is None
    assert event["headers"]["content-type"] == "application/json"


def test_an_integer_of_more_than_4300_digits_is_a_400_saying_so() -> None:
    # Given: valid JSON that Python will not convert (sys.get_int_max_str_digits())
    event = _post('{"name": "x", "payload": ' + "9" * 5000 + "}")

    # When
    response = json_body_required(event)

    # Then
    assert response is not None
    assert response["statusCode"] == 400
    error = _error(response)
    assert error["code"] == "integer_too_long"
    assert error["message"] == (
        "the body holds an integer of more than 4300 digits; roomcast accepts integers of at most 4300 digits"
    )


@pytest.mark.parametrize("number", ["9" * 4300, "-" + "9" * 4300])
def test_an_integer_of_4300_digits_is_accepted(number: str) -> None:
    # When
    response = json_body_required(_post('{"payload": ' + number + "}"))

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
