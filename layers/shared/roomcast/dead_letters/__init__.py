"""Dead letters: their store and their replay (claimed before sent: two replays never both send one).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.dead_letters.ports import (
        DeadLetter as DeadLetter,
        DeadLetterRecords as DeadLetterRecords,
        ReplayClaim as ReplayClaim,
    )
    from roomcast.dead_letters.replays import REPLAY_CLAIM_MS as REPLAY_CLAIM_MS, Replayer as Replayer
    from roomcast.dead_letters.store import DeadLetterTable as DeadLetterTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
