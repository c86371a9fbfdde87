"""Ordering keys: the rule of a key's head and line, their store and numbers, a key's step, the
sends in a key's turn and an operator's resume (docs/ordering-keys.md, ADR 0041).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.ordering.model import (
        MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM as MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM,
        ORDERING_KEY_PATTERN as ORDERING_KEY_PATTERN,
        KeyHead as KeyHead,
        KeyRef as KeyRef,
        is_ordering_key as is_ordering_key,
        number_in_lines as number_in_lines,
        numbers_wanted as numbers_wanted,
    )
    from roomcast.ordering.numbers import KeyNumbers as KeyNumbers
    from roomcast.ordering.ports import KeyLines as KeyLines, KeyNumberRecords as KeyNumberRecords
    from roomcast.ordering.resumes import KeyResumes as KeyResumes
    from roomcast.ordering.sends import OrderedSends as OrderedSends
    from roomcast.ordering.steps import KeySteps as KeySteps
    from roomcast.ordering.store import OrderingKeys as OrderingKeys, waiting_items as waiting_items

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
