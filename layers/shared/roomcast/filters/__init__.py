"""Payload filters: the SNS filter-policy language on a message's payload, checked when a policy is
saved and evaluated at publish with bounded work (docs/filters.md, ADR 0037, ADR 0043).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.filters.index import PayloadIndex as PayloadIndex
    from roomcast.filters.policy import (
        FilterPolicy as FilterPolicy,
        InvalidFilterPolicy as InvalidFilterPolicy,
    )
    from roomcast.filters.schema import FilterPolicyBody as FilterPolicyBody

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
