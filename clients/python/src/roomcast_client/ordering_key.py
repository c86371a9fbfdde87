"""An ordering key of an ordered subscription: flowing, or paused on a message that ended dead
(``client.ordering_keys``; docs/ordering-keys.md)."""

from __future__ import annotations

from typing import Literal

from roomcast_client.models import ApiModel


class OrderingKey(ApiModel):
    """A key of an ordered subscription. Paused: its later messages wait behind ``dead_message_id``
    until ``ordering_keys.resume``; flowing: ``in_flight`` is its message on its way, if any."""

    ordering_key: str
    status: Literal["flowing", "paused"]
    dead_message_id: str | None = None
    reason: str | None = None  # why the dead message died
    paused_at: str | None = None
    in_flight: str | None = None


class OrderingKeyList(ApiModel):
    ordering_keys: list[OrderingKey]
