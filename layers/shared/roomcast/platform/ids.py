"""Identifiers: a short type prefix and 128 random bits, so ids name what they are in logs."""

from __future__ import annotations

import hashlib
import secrets


def new_room_id() -> str:
    return f"room_{secrets.token_hex(16)}"


def new_subscription_id() -> str:
    return f"sub_{secrets.token_hex(16)}"


ROOM_ID_PATTERN = r"^room_[0-9a-f]{32}$"
SUBSCRIPTION_ID_PATTERN = r"^sub_[0-9a-f]{32}$"


def new_message_id() -> str:
    return f"msg_{secrets.token_hex(16)}"


def message_id_for(tenant_id: str, room_id: str, idempotency_key: str) -> str:
    """The id of the message a keyed publish stores: the same for every retry of the publish, so
    a retry after a crash finds the message the first try stored instead of storing a second."""
    digest = hashlib.sha256(f"{tenant_id}\n{room_id}\n{idempotency_key}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


MESSAGE_ID_PATTERN = r"^msg_[0-9a-f]{32}$"


def new_publish_request_id() -> str:
    """One publish request (a single publish or a batch), whose first sends are recorded done."""
    return f"pub_{secrets.token_hex(16)}"


def new_job_id() -> str:
    return f"job_{secrets.token_hex(16)}"


JOB_ID_PATTERN = r"^job_[0-9a-f]{32}$"


def new_release_id() -> str:
    """A scheduled message's release (roomcast.outbox.tasks.Release); also its schedule's name."""
    return f"rel_{secrets.token_hex(16)}"
