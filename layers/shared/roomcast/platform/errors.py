"""Domain errors. The API maps each to one HTTP status and a JSON error body."""

from __future__ import annotations

from typing import Any


class RoomcastError(Exception):
    """Base: ``code`` is machine-readable, ``message`` says what is wrong in words; each subclass
    has its own default code and HTTP status."""

    code = "error"
    http_status = 400

    def __init__(
        self,
        message: str,
        details: list[dict[str, Any]] | None = None,
        code: str | None = None,
        http_status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []
        self.code = code or type(self).code
        self.http_status = http_status or type(self).http_status

    def __str__(self) -> str:
        return self.message


class NotFound(RoomcastError):
    code, http_status = "not_found", 404


class InvalidRequest(RoomcastError):
    code, http_status = "validation_error", 422


class PushOnly(RoomcastError):
    """A PUSH-only setting (flow control, auto-disable) given for a PULL subscription."""

    code, http_status = "push_only", 400


class Conflict(RoomcastError):
    code, http_status = "conflict", 409


class LimitExceeded(RoomcastError):
    code, http_status = "limit_exceeded", 409
