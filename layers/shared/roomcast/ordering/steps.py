"""One step of an ordering key (docs/decisions/0041-ordering-keys.md): read the key, plan what the
event does (roomcast.ordering.model), take the ended message out of line, then change the head in
one conditional write; when another step moved the key first, read it again and plan anew. What it
answers is the message to send now, if any: the caller sends its envelope, after the claim, so a
crash in between leaves the claim to its trigger, which the table's stream hands back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from roomcast.catalog import OnDeadKey
from roomcast.ordering.model import (
    Arrived,
    Ended,
    KeyEvent,
    KeyPlan,
    KeyRef,
    plan,
    releases_alone,
    trigger_of,
)
from roomcast.ordering.store import OrderingKeys, waiting_sort_key

# Concurrent steps of one key are a handful at most (an arrival, an ending, an operator): each
# refused write means another step went through.
MAX_TRIES: Final = 8
# A key's numbers start here (roomcast.ordering.numbers: the counter's first ADD answers 1).
FIRST_NUMBER: Final = 1


class KeyContention(RuntimeError):
    """A key kept moving under this step: it is retried with its trigger (the stream's record)."""


@dataclass(frozen=True)
class KeySteps:
    keys: OrderingKeys

    def step(self, ref: KeyRef, event: KeyEvent, on_dead: OnDeadKey, now_ms: int, number: int = 0) -> KeyPlan:
        """Apply ``event`` to the key ``ref``; the plan applied: ``sends`` is the message to send
        now (claimed, or claimed before by this event's trigger and maybe never sent), ``replay``
        when it is a dead one resumed. ``number``: the ended message's (its place in line, when
        it is not among the first ones read), or the arrived one's."""
        if isinstance(event, Arrived) and number == FIRST_NUMBER:
            # The first message its key ever had: nothing can wait before it, so a free key takes it
            # without reading its line (the claim's condition is the plan's). Refused (the key is
            # held, paused, or this trigger claimed it before), the line is read as for any other.
            first = KeyPlan(claim=event.message_id)
            if self.keys.change_head(ref, first, trigger_of(event), now_ms, None):
                return first
        # An ending of the message in flight with nothing queued behind it (the usual case of a key
        # with one message at a time): released without reading the line, then out of it (the
        # deletion held back to go with the invocation's others).
        if (
            isinstance(event, Ended)
            and number > 0
            and releases_alone(event, on_dead)
            and self.keys.release_alone(ref, event.message_id, now_ms)
        ):
            self.keys.forget_later(ref, waiting_sort_key(number, event.message_id))
            return KeyPlan(forget=event.message_id, release=event.message_id)
        for _ in range(MAX_TRIES):
            line = self.keys.read(ref)
            steps = plan(line.head, line.waiting_ids, event, on_dead)
            if steps.forget is not None:
                place = line.place_of(steps.forget)
                if place is None and isinstance(event, Ended) and event.message_id == steps.forget:
                    place = waiting_sort_key(number, steps.forget)
                if place is not None:
                    self.keys.forget(ref, place)
            if self.keys.change_head(ref, steps, trigger_of(event), now_ms, line.head):
                return steps
        raise KeyContention(f"ordering key {ref.ordering_key} of {ref.subscription_id} kept moving")
