"""An operator's resume of a paused ordering key (docs/ordering-keys.md): the key's head unpaused in
one conditional write — of two resumes at once one wins and the other is told the key is not
paused — then its dead message sent again first, ending its dead letter as a replay does: the
letter is claimed before the send (a replay holding it sends it instead, so the message goes once)
and deleted after it (a crash in between leaves it to be replayed: twice at worst, never lost).
With ``skip`` the dead message stays a dead letter and the key's next message goes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from roomcast.catalog import Subscription
from roomcast.dead_letters import REPLAY_CLAIM_MS, DeadLetterRecords, ReplayClaim
from roomcast.ordering.model import KeyRef, Resumed
from roomcast.ordering.sends import OrderedSends
from roomcast.platform import Conflict


@dataclass
class KeyResumes:
    sends: OrderedSends
    dead_letters: DeadLetterRecords

    def resume(self, subscription: Subscription, ordering_key: str, skip: bool) -> None:
        """Resume a paused key (409 ``not_paused`` when it flows, another resume included)."""
        ref = KeyRef(subscription.tenant_id, subscription.room_id, subscription.id, ordering_key)
        now = self.sends.clock()
        resumed = Resumed(skip=skip, at_ms=now, request=uuid.uuid4().hex)
        steps = self.sends.keys.step(ref, resumed, subscription.on_dead_key, now)
        if not steps.unpause:
            raise Conflict(f"ordering key {ordering_key} is not paused", code="not_paused")
        if steps.replay is not None:
            self._replay(subscription, steps.replay, now)
        elif steps.claim is not None:
            self.sends.send_in_turn(subscription, steps.claim, again=False)

    def _replay(self, subscription: Subscription, message_id: str, now: int) -> None:
        tenant_id, room_id = subscription.tenant_id, subscription.room_id
        claim = ReplayClaim(uuid.uuid4().hex, now, now + REPLAY_CLAIM_MS)
        claimed = self.dead_letters.claim(tenant_id, room_id, subscription.id, [message_id], claim)
        if message_id in claimed.held_elsewhere:
            return  # a replay of it is sending it: its ending moves the key on
        if self.sends.send_in_turn(subscription, message_id, again=True) and claimed.letters:
            self.dead_letters.delete_claimed(tenant_id, room_id, subscription.id, [message_id], claim)
