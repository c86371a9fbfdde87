"""Dead-letter use cases: list, and replay named ones from attempt 0 (roomcast.dead_letters.replays).
Replaying a range (or all) and purging grow with the dead letters: they run as jobs
(management_api.jobs)."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.catalog import Catalog, Subscription
from roomcast.dead_letters import DeadLetter, DeadLetterRecords, Replayer
from roomcast.platform import Page, Position


@dataclass(frozen=True)
class Replayed:
    replayed: list[str]
    not_found: list[str]
    already_replaying: list[str]  # held by another replay right now: not sent by this one


@dataclass
class DeadLettersService:
    catalog: Catalog
    dead_letters: DeadLetterRecords
    replayer: Replayer

    def page(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, start: Position | None
    ) -> Page[DeadLetter]:
        self._subscription(tenant_id, room_id, subscription_id)
        return self.dead_letters.page(tenant_id, room_id, subscription_id, limit, start)

    def replay(self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]) -> Replayed:
        """Send these dead letters again from attempt 0."""
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        outcome = self.replayer.replay(subscription, message_ids)
        answered = {*outcome.replayed, *outcome.held_elsewhere}
        not_found = [m for m in dict.fromkeys(message_ids) if m not in answered]
        return Replayed(outcome.replayed, not_found, outcome.held_elsewhere)

    def _subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.catalog.get_room(tenant_id, room_id)
        return self.catalog.get_subscription(tenant_id, room_id, subscription_id)
