"""The ``Idempotency-Key`` header: checked here (400 when malformed); what a key does is
roomcast.publishing.keyed_messages (the message id comes from it; a retry answers what is stored)."""

from __future__ import annotations

import re

from publish_api.models import IDEMPOTENCY_KEY_REGEX
from roomcast.platform import InvalidRequest

IDEMPOTENCY_KEY_PATTERN = re.compile(IDEMPOTENCY_KEY_REGEX)


def idempotency_key(value: str | None) -> str | None:
    """The request's ``Idempotency-Key`` header, checked (400 when malformed), or None."""
    if value is None:
        return None
    if not IDEMPOTENCY_KEY_PATTERN.match(value):
        problem = "must be 1-128 letters, digits, '.', '_', ':' or '-'"
        raise InvalidRequest(
            f"Idempotency-Key {problem}",
            code="invalid_idempotency_key",
            http_status=400,
            details=[{"field": "header.Idempotency-Key", "problem": problem, "type": "invalid"}],
        )
    return value
