"""Scheduled messages (deliverAt): when a message is released, its release and cancel marks, its
and the scheduled messages' store (ADR 0039).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.deliver_at.ports import ScheduledRecords as ScheduledRecords
    from roomcast.deliver_at.rules import (
        LAST_STRETCH_MS as LAST_STRETCH_MS,
        MAX_DELIVER_AHEAD_MS as MAX_DELIVER_AHEAD_MS,
        Carrier as Carrier,
        carrier_for as carrier_for,
        hop_delay_seconds as hop_delay_seconds,
        release_at_ms as release_at_ms,
        schedule_fires_at_ms as schedule_fires_at_ms,
    )
    from roomcast.deliver_at.store import ScheduledTable as ScheduledTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
