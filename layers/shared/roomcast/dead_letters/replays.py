"""Replaying dead letters: each is claimed (of two replays of one letter at once, one sends it and
the other reports it held elsewhere), sent again from attempt 0 with the subscription's current
policy, recorded ``pending``, logged, and only then removed from the dead letters. A crash after
the claim replays twice (once the claim has run out), never zero times. Used by the replay of named
letters (the management API) and by replay jobs (the outbox function)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from roomcast.catalog import Subscription
from roomcast.dead_letters.ports import DeadLetterRecords, ReplayClaim
from roomcast.log import LogEvent, LogRecord, LogSink
from roomcast.messages import DeliveryStatus, MessageRecords, QueueAddresses, Sender
from roomcast.platform import SECOND_MS, iso_from_ms, now_ms

# How long a replay holds the dead letters it claimed: longer than a function may run with them
# (the API's 29 s, a job step's budget), so a live replay never loses its claim; a crashed one's
# letters can be replayed after this.
REPLAY_CLAIM_MS: Final = 60 * SECOND_MS


@dataclass(frozen=True)
class ReplayOutcome:
    replayed: list[str]
    held_elsewhere: list[str]  # claimed by another replay right now: not sent by this one


@dataclass
class Replayer:
    dead_letters: DeadLetterRecords
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    clock: Callable[[], int] = now_ms

    def replay(self, subscription: Subscription, message_ids: Sequence[str]) -> ReplayOutcome:
        """Replay these dead letters of the subscription (ids without one are passed over)."""
        tenant_id, room_id = subscription.tenant_id, subscription.room_id
        now = self.clock()
        claim = ReplayClaim(uuid.uuid4().hex, now, now + REPLAY_CLAIM_MS)
        claimed = self.dead_letters.claim(tenant_id, room_id, subscription.id, list(message_ids), claim)
        letters = claimed.letters
        self.sender.send(
            [
                self.addresses.outgoing_for(
                    subscription,
                    replace(letter.envelope.next_attempt(0, 0, now), failovers=0, queued_at_ms=now),
                )
                for letter in letters
            ]
        )
        for letter in letters:
            envelope = letter.envelope
            self.messages.update_delivery(
                envelope.record(
                    subscription.type,
                    DeliveryStatus.PENDING,
                    0,
                    f"replayed from dead letters ({letter.reason})",
                    iso_from_ms(now),
                ),
                force=True,
            )
            self.log.add(
                LogRecord.about(
                    envelope,
                    LogEvent.REPLAYED,
                    subscription.type,
                    attempt=envelope.attempt,
                    error=letter.reason,
                )
            )
        replayed = [letter.envelope.message_id for letter in letters]
        self.dead_letters.delete_claimed(tenant_id, room_id, subscription.id, replayed, claim)
        return ReplayOutcome(replayed, claimed.held_elsewhere)
