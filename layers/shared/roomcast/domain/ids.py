"""Identifiers: a short type prefix and 128 random bits, so ids name what they are in logs."""

from __future__ import annotations

import secrets


def new_room_id() -> str:
    return f"room_{secrets.token_hex(16)}"


def new_subscription_id() -> str:
    return f"sub_{secrets.token_hex(16)}"


ROOM_ID_PATTERN = r"^room_[0-9a-f]{32}$"
SUBSCRIPTION_ID_PATTERN = r"^sub_[0-9a-f]{32}$"


def new_message_id() -> str:
    return f"msg_{secrets.token_hex(16)}"


MESSAGE_ID_PATTERN = r"^msg_[0-9a-f]{32}$"
