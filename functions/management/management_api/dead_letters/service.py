"""Dead-letter use cases: list, replay from attempt 0, purge.

A replay claims each dead letter before sending it (roomcast.dal.dead_letters): of two replays of
one letter at once, one sends it and the other reports it ``alreadyReplaying``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from roomcast.dal.dead_letters import DeadLetter, ReplayClaim
from roomcast.dal.pages import Page, Position
from roomcast.dal.ports import Catalog, DeadLetterRecords, LogSink, MessageRecords, PullQueueAdmin, Sender
from roomcast.dal.sender import QueueAddresses
from roomcast.domain.clock import SECOND_MS, iso_from_ms, now_ms
from roomcast.domain.limits import REPLAY_BATCH
from roomcast.domain.log_records import LogEvent, LogRecord
from roomcast.domain.messages import DeliveryStatus
from roomcast.domain.models import Subscription

# How long a replay holds the dead letters it claimed: longer than the function may run (29 s),
# so a live replay never loses its claim; a crashed one's letters can be replayed after this.
REPLAY_CLAIM_MS: Final = 60 * SECOND_MS


@dataclass(frozen=True)
class Replayed:
    replayed: list[str]
    not_found: list[str]
    remaining: bool  # more dead letters are left
    already_replaying: list[str]  # held by another replay right now: not sent by this one


@dataclass
class DeadLettersService:
    catalog: Catalog
    dead_letters: DeadLetterRecords
    messages: MessageRecords
    queues: PullQueueAdmin
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    clock: Callable[[], int] = now_ms

    def page(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, start: Position | None
    ) -> Page[DeadLetter]:
        self._subscription(tenant_id, room_id, subscription_id)
        return self.dead_letters.page(tenant_id, room_id, subscription_id, limit, start)

    def replay(
        self,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        message_ids: list[str] | None,
        window: tuple[str | None, str | None] | None = None,
    ) -> Replayed:
        """Send dead letters again from attempt 0: the given ones, the next batch of those that
        died within ``window`` (ISO texts, inclusive; None = open), or the next batch of all."""
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        if window is not None:
            letters, remaining = self._died_within(tenant_id, room_id, subscription_id, window)
            wanted = [letter.envelope.message_id for letter in letters]
        elif message_ids is None:
            page = self.dead_letters.page(tenant_id, room_id, subscription_id, REPLAY_BATCH, None)
            wanted = [letter.envelope.message_id for letter in page.items]
            remaining = page.next_position is not None
        else:
            wanted, remaining = message_ids, False
        now = self.clock()
        claim = ReplayClaim(uuid.uuid4().hex, now, now + REPLAY_CLAIM_MS)
        claimed = self.dead_letters.claim(tenant_id, room_id, subscription_id, wanted, claim)
        letters = claimed.letters
        # Claimed, sent, then marked and removed: a crash after the claim replays twice (once the
        # claim has run out), never zero times.
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
            self.messages.update_delivery(
                letter.envelope.record(
                    subscription.type,
                    DeliveryStatus.PENDING,
                    0,
                    f"replayed from dead letters ({letter.reason})",
                    iso_from_ms(now),
                ),
                force=True,
            )
            envelope, kind = letter.envelope, subscription.type
            self.log.add(
                LogRecord.about(
                    envelope, LogEvent.REPLAYED, kind, attempt=envelope.attempt, error=letter.reason
                )
            )
        replayed = [letter.envelope.message_id for letter in letters]
        self.dead_letters.delete_claimed(tenant_id, room_id, subscription_id, replayed, claim)
        answered = {*replayed, *claimed.held_elsewhere}
        not_found = [m for m in dict.fromkeys(message_ids or []) if m not in answered]
        return Replayed(replayed, not_found, remaining, claimed.held_elsewhere)

    def _died_within(
        self, tenant_id: str, room_id: str, subscription_id: str, window: tuple[str | None, str | None]
    ) -> tuple[list[DeadLetter], bool]:
        """The first REPLAY_BATCH letters that died within the window, and whether more did."""
        since, until = window
        found: list[DeadLetter] = []
        start: Position | None = None
        while True:
            page = self.dead_letters.page(tenant_id, room_id, subscription_id, REPLAY_BATCH, start)
            for letter in page.items:
                if (since is None or letter.dead_at >= since) and (until is None or letter.dead_at <= until):
                    if len(found) == REPLAY_BATCH:
                        return found, True
                    found.append(letter)
            if page.next_position is None:
                return found, False
            start = page.next_position

    def purge(self, tenant_id: str, room_id: str, subscription_id: str) -> int:
        """Delete every dead letter of the subscription (and empty a PULL one's dead-letter queue)."""
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        purged = 0
        while letters := self.dead_letters.page(
            tenant_id, room_id, subscription_id, REPLAY_BATCH, None
        ).items:
            self.dead_letters.delete(
                tenant_id, room_id, subscription_id, [letter.envelope.message_id for letter in letters]
            )
            purged += len(letters)
        if subscription.dead_letter_queue_url:
            self.queues.purge(subscription.dead_letter_queue_url)
        return purged

    def _subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.catalog.get_room(tenant_id, room_id)
        return self.catalog.get_subscription(tenant_id, room_id, subscription_id)
