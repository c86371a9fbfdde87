"""The SDK's exceptions: every non-2xx answer is an ``ApiError`` subclass chosen by its status,
carrying the API's error ``code``, ``message`` and ``details``; a network failure is a
``TransportError``."""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import Any

import httpx


class RoomcastError(Exception):
    """Base of every exception the SDK raises."""


class TransportError(RoomcastError):
    """The API could not be reached, or the connection broke before an answer (after retries)."""


class ResponseError(RoomcastError):
    """The API answered 2xx with a body the SDK could not read as the documented response."""


class WebhookVerificationError(RoomcastError):
    """A webhook's signature, id or timestamp did not verify: do not trust its body."""


class ApiError(RoomcastError):
    """A non-2xx answer. ``code`` is the API's machine-readable error code (``not_found``,
    ``validation_error``, …); ``details`` names each offending field
    (``[{"field", "problem", "type"}]``, possibly empty)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: list[dict[str, Any]] | None = None,
        *,
        retry_after_s: float | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: list[dict[str, Any]] = details or []
        self.retry_after_s = retry_after_s
        self.headers: dict[str, str] = headers or {}


class BadRequest(ApiError):
    """400: malformed JSON, a bad cursor, receipt or idempotency key, a PUSH-only field on PULL."""


class Unauthorized(ApiError):
    """401: no API key was sent."""


class Forbidden(ApiError):
    """403: the API key is wrong, unknown or revoked."""


class NotFound(ApiError):
    """404: no such room, subscription, message or key (or it belongs to another tenant)."""


class MethodNotAllowed(ApiError):
    """405: the path exists, but not with this method."""


class Conflict(ApiError):
    """409: a concurrent change or a limit (``conflict``, ``limit_exceeded``, ``last_key``…)."""


class PayloadTooLarge(ApiError):
    """413: a payload over 128 KiB or a body over 256 KiB."""


class UnsupportedMediaType(ApiError):
    """415: a body without ``Content-Type: application/json``."""


class UnprocessableEntity(ApiError):
    """422: validation failed (``validation_error``, ``unroutable``, ``invalid_push_url``…)."""


class RateLimited(ApiError):
    """429: the API throttled the request; ``retry_after_s`` says when to try again, if it did."""


class ServerError(ApiError):
    """5xx: the API or AWS failed (``internal_error``), or the gateway timed out (503)."""


ERROR_CLASS_OF_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    422: UnprocessableEntity,
    429: RateLimited,
}

# API Gateway's own answers are {"message": ...}: their code is named after the status.
GATEWAY_CODE_OF_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "route_not_found",
    413: "payload_too_large",
    429: "too_many_requests",
    431: "headers_too_large",
    500: "internal_error",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}


def retry_after_seconds(value: str | None, now_epoch_s: float) -> float | None:
    """A ``Retry-After`` header's wait in seconds (delta-seconds or an HTTP date), or None."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now_epoch_s)


def error_class(status: int) -> type[ApiError]:
    if status >= 500:
        return ServerError
    return ERROR_CLASS_OF_STATUS.get(status, ApiError)


def error_from_response(response: httpx.Response, now_epoch_s: float) -> ApiError:
    """The typed exception for a non-2xx answer, from the API's error body or the gateway's."""
    status = response.status_code
    code = GATEWAY_CODE_OF_STATUS.get(status, f"http_{status}")
    message = response.reason_phrase or f"HTTP {status}"
    details: list[dict[str, Any]] = []
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
        if response.text.strip():
            message = response.text.strip()[:500]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        code = str(error.get("code") or code)
        message = str(error.get("message") or message)
        raw_details = error.get("details")
        if isinstance(raw_details, list):
            details = [d for d in raw_details if isinstance(d, dict)]
    elif isinstance(body, dict) and isinstance(body.get("message"), str):
        message = body["message"]
    return error_class(status)(
        status,
        code,
        message,
        details,
        retry_after_s=retry_after_seconds(response.headers.get("retry-after"), now_epoch_s),
        headers=dict(response.headers),
    )
