"""The type of a message payload: any JSON value (what a publisher sent, what a subscriber gets)."""

from __future__ import annotations

type JsonValue = dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None
