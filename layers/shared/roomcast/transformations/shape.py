"""What a handler receives and what it may return (docs/transformations.md). Pure.

In: ``{"eventType", "payload"}``, and for a webhook ``url``, ``method`` ("POST") and ``headers``
(the extra headers to send, none to begin with). Out: the same object (changed in place or new).
``payload`` becomes the message's payload in the delivery (its ``payload`` field, or a CloudEvent's
``data``); a webhook's ``url`` is checked at the request like any push URL; ``headers`` are added
to the request, except the ones roomcast sets itself; ``cancel: true`` skips the delivery."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from roomcast.platform import JsonValue, RoomcastError, check_payload_size
from roomcast.transformations.model import TransformationFailed, Transformed

METHODS = ("POST", "PUT")
# A handler may not set what frames the request, signs it or says what it is: roomcast's own headers.
RESERVED_HEADERS = re.compile(
    r"(host|content-length|content-type|transfer-encoding|connection|user-agent|traceparent|"
    r"x-correlation-id|webhook-.*|ce-.*)",
    re.IGNORECASE,
)
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}")
_HEADER_VALUE = re.compile(r"[\x20-\x7e]{0,1024}")
MAX_HEADERS = 20
_KEYS = frozenset({"eventType", "payload", "url", "method", "headers", "cancel"})


@dataclass(frozen=True)
class WebhookShape:
    """What a delivery looks like before its transformation (``url`` None: not a webhook)."""

    event_type: str
    payload: JsonValue
    url: str | None = None

    def to_input(self) -> dict[str, Any]:
        given: dict[str, Any] = {"eventType": self.event_type, "payload": self.payload}
        if self.url is not None:
            given |= {"url": self.url, "method": "POST", "headers": {}}
        return given


def read_output(text: str, given: WebhookShape) -> Transformed:
    """The handler's return value (as JSON text) read strictly; TransformationFailed says what is
    wrong with it."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise TransformationFailed("handler did not return an object") from error
    if not isinstance(value, dict):
        raise TransformationFailed(f"handler returned {_kind(value)}, not the webhook object")
    unknown = sorted(set(value) - _KEYS)
    if unknown:
        raise TransformationFailed(f"handler returned unknown fields: {', '.join(unknown)[:200]}")
    if value.get("eventType", given.event_type) != given.event_type:
        raise TransformationFailed("eventType cannot be changed")
    cancel = value.get("cancel", False)
    if not isinstance(cancel, bool):
        raise TransformationFailed("cancel must be true or false")
    if "payload" not in value:
        raise TransformationFailed("handler returned no payload")
    payload = value["payload"]
    try:
        check_payload_size(payload)
    except RoomcastError as error:
        raise TransformationFailed(f"payload: {error}") from error
    if given.url is None:
        extra = sorted({"url", "method", "headers"} & set(value))
        if extra:
            raise TransformationFailed(f"{', '.join(extra)} apply to webhooks only")
        return Transformed(payload, cancel)
    url = value.get("url", given.url)
    if not isinstance(url, str) or not url:
        raise TransformationFailed("url must be a non-empty string")
    method = value.get("method", "POST")
    if method not in METHODS:
        raise TransformationFailed(f"method must be one of {', '.join(METHODS)}")
    return Transformed(payload, cancel, url, method, _headers(value.get("headers", {})))


def _headers(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        raise TransformationFailed("headers must be an object of strings")
    if len(value) > MAX_HEADERS:
        raise TransformationFailed(f"at most {MAX_HEADERS} headers")
    headers: dict[str, str] = {}
    for name, header_value in value.items():
        if not _HEADER_NAME.fullmatch(name):
            raise TransformationFailed(f"header name {name[:64]!r} is not a valid header name")
        if RESERVED_HEADERS.fullmatch(name):
            raise TransformationFailed(f"header {name!r} is set by roomcast")
        if not isinstance(header_value, str) or not _HEADER_VALUE.fullmatch(header_value):
            raise TransformationFailed(f"header {name!r} must be printable ASCII, at most 1024 characters")
        headers[name] = header_value
    return headers


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", str: "a string", list: "an array", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )
