"""Domain errors. The API maps each to one HTTP status and a JSON error body."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RoomcastError(Exception):
    """Base: ``code`` is machine-readable, ``message`` says what is wrong in words."""

    message: str
    details: list[dict[str, Any]] = field(default_factory=list)
    code: str = "error"
    http_status: int = 400

    def __str__(self) -> str:
        return self.message


@dataclass
class NotFound(RoomcastError):
    code: str = "not_found"
    http_status: int = 404


@dataclass
class InvalidRequest(RoomcastError):
    code: str = "validation_error"
    http_status: int = 422


@dataclass
class Conflict(RoomcastError):
    code: str = "conflict"
    http_status: int = 409


@dataclass
class LimitExceeded(RoomcastError):
    code: str = "limit_exceeded"
    http_status: int = 409
