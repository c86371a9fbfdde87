"""The SDK's error mapping: the API's error body and API Gateway's own become typed exceptions."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import httpx
import pytest

from roomcast_client import (
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServerError,
    Unauthorized,
    UnprocessableEntity,
)
from roomcast_client.errors import error_from_response, retry_after_seconds

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, BadRequest),
        (401, Unauthorized),
        (403, Forbidden),
        (404, NotFound),
        (409, Conflict),
        (413, PayloadTooLarge),
        (422, UnprocessableEntity),
        (429, RateLimited),
        (500, ServerError),
        (503, ServerError),
        (418, ApiError),
    ],
)
def test_each_status_has_its_class(status: int, kind: type[ApiError]) -> None:
    # When
    error = error_from_response(httpx.Response(status, json={"message": "x"}), NOW)

    # Then
    assert type(error) is kind
    assert error.status == status


def test_the_apis_error_body_gives_code_message_and_details() -> None:
    # Given
    detail = {
        "field": "body.deliveryAttempts",
        "problem": "Input should be less than or equal to 50",
        "type": "less_than_equal",
    }
    body = {
        "error": {
            "code": "validation_error",
            "message": "body.deliveryAttempts: too many",
            "details": [detail],
        }
    }

    # When
    error = error_from_response(httpx.Response(422, json=body), NOW)

    # Then
    assert (error.code, error.message, error.details) == (
        "validation_error",
        "body.deliveryAttempts: too many",
        [detail],
    )
    assert str(error) == "422 validation_error: body.deliveryAttempts: too many"


def test_the_gateways_body_gets_a_code_named_after_its_status() -> None:
    # When
    unauthorized = error_from_response(httpx.Response(401, json={"message": "Unauthorized"}), NOW)
    unavailable = error_from_response(httpx.Response(503, json={"message": "Service Unavailable"}), NOW)

    # Then
    assert (unauthorized.code, unauthorized.message, unauthorized.details) == (
        "unauthorized",
        "Unauthorized",
        [],
    )
    assert unavailable.code == "service_unavailable"


def test_a_body_that_is_not_json_becomes_the_message() -> None:
    # When
    error = error_from_response(httpx.Response(502, text="upstream connect error"), NOW)

    # Then
    assert (error.code, error.message) == ("bad_gateway", "upstream connect error")


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("5", 5.0),
        (" 0 ", 0.0),
        (format_datetime(datetime.fromtimestamp(NOW + 30, UTC), usegmt=True), 30.0),
        (format_datetime(datetime.fromtimestamp(NOW - 30, UTC), usegmt=True), 0.0),
        ("soon", None),
        ("-3", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_in_seconds_or_as_a_date(header: str | None, seconds: float | None) -> None:
    # When / Then
    assert retry_after_seconds(header, NOW) == seconds
