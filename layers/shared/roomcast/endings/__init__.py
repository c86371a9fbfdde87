"""How a delivery ends: dead (a dead letter), handed to its failover, expired, or cleared.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.endings.clearing import end_cleared as end_cleared, messages_of as messages_of
    from roomcast.endings.endings import Endings as Endings

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
