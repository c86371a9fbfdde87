"""Messages stored together: a batch publish's messages with ordered destinations, each with its
places in its keys' lines, in as few transactions as DynamoDB takes (100 items and 4 MB each), so
that a batch of 100 keyed messages is a couple of writes, not a hundred (ADR 0049). Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from roomcast.messages.model import Delivery, Message

TRANSACTION_MAX_ITEMS: Final = 100
# DynamoDB takes 4 MB a transaction; the estimate below is of the items' JSON, which runs a little
# over their stored size: a margin, not a bound to the byte.
TRANSACTION_MAX_BYTES: Final = 3 * 1024 * 1024

Stored = tuple[tuple[Message, Sequence[Delivery]], Sequence[Mapping[str, Any]]]


def transaction_groups(stored: Sequence[Stored]) -> list[list[Stored]]:
    """``stored`` (each message, its records and its places) cut into groups that fit a transaction,
    in order; a message and its places are never split."""
    groups: list[list[Stored]] = []
    items = size = 0
    for one in stored:
        (message, _), places = one
        one_items = 1 + len(places)
        one_size = _approximate_bytes(message) + sum(len(json.dumps(p, default=str)) for p in places)
        if not groups or items + one_items > TRANSACTION_MAX_ITEMS or size + one_size > TRANSACTION_MAX_BYTES:
            groups.append([])
            items = size = 0
        groups[-1].append(one)
        items += one_items
        size += one_size
    return groups


def _approximate_bytes(message: Message) -> int:
    """The message item's size, about: its payload and a kilobyte for the rest."""
    return len(json.dumps(message.payload, default=str)) + 1024
