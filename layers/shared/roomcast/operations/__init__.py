"""Operational events: roomcast's own messages about a room's deliveries, published into its
operations room.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.operations import events as events
    from roomcast.operations.events import (
        SUBSCRIPTION_ENABLED as SUBSCRIPTION_ENABLED,
        SUBSCRIPTION_FAILING as SUBSCRIPTION_FAILING,
        OperationalEvents as OperationalEvents,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
