"""API keys: their store (ADR 0003).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.keys.store import (
        ApiKeyEntry as ApiKeyEntry,
        ApiKeyTable as ApiKeyTable,
        issue_api_key as issue_api_key,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
