"""The type of a message payload: any JSON value (what a publisher sent, what a subscriber gets)."""

from __future__ import annotations

import json

from roomcast.platform import limits
from roomcast.platform.errors import RoomcastError

type JsonValue = dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None


def payload_text(payload: JsonValue) -> str:
    """A payload as it is stored and sent: compact JSON, every non-ASCII character escaped
    (``\\uXXXX``). Its length is the payload's size everywhere (the publish limit, the message
    item, the envelope), so what the limit checks is exactly what is stored."""
    return json.dumps(payload, separators=(",", ":"))


def payload_size_bytes(payload: JsonValue) -> int:
    """The stored size of a payload (ASCII text: one byte per character)."""
    return len(payload_text(payload))


class PayloadTooLarge(RoomcastError):
    def __init__(self, size_bytes: int) -> None:
        super().__init__(
            f"payload is {size_bytes} bytes as stored (compact JSON, non-ASCII characters escaped"
            f" as \\uXXXX); the limit is {limits.MAX_PAYLOAD_BYTES}",
            code="payload_too_large",
            http_status=413,
        )


def check_payload_size(payload: JsonValue) -> None:
    """PayloadTooLarge (413) for a payload over MAX_PAYLOAD_BYTES as stored: what a publish, a
    filter dry run and a schema check take alike."""
    payload_size = payload_size_bytes(payload)
    if payload_size > limits.MAX_PAYLOAD_BYTES:
        raise PayloadTooLarge(payload_size)


def value_count(payload: object, most: int) -> int:
    """How many values ``payload`` holds (itself, each member and item, all the way down), counted
    no further than ``most + 1``."""
    count, stack = 0, [payload]
    while stack and count <= most:
        value = stack.pop()
        count += 1
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return count
