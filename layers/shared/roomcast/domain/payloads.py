"""The type of a message payload: any JSON value (what a publisher sent, what a subscriber gets)."""

from __future__ import annotations

import json

type JsonValue = dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None


def payload_text(payload: JsonValue) -> str:
    """A payload as it is stored and sent: compact JSON, every non-ASCII character escaped
    (``\\uXXXX``). Its length is the payload's size everywhere (the publish limit, the message
    item, the envelope), so what the limit checks is exactly what is stored."""
    return json.dumps(payload, separators=(",", ":"))


def payload_size_bytes(payload: JsonValue) -> int:
    """The stored size of a payload (ASCII text: one byte per character)."""
    return len(payload_text(payload))
