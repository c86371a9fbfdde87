"""One step of a job (roomcast.jobs.model): a page of its work, from where the last step stopped.
Every step is safe to run twice: its writes are conditional (a delivery already cleared, a letter
already purged or replayed is passed over), so a step that crashed and ran again does no harm;
counts come from the writes that took effect.

- **Clear All**: the deliveries of the room's messages published until the watermark (raised by
  the request) that are still pending or retrying end ``cleared``, a page of messages per step.
- **Purge**: the subscription's dead letters that died until the job started are deleted, a page
  per step; at the end a PULL subscription's dead-letter queue is purged.
- **Replay by range**: those that died within the window (and until the job started) are replayed
  (roomcast.dead_letters.replays), a page per step.
- **Retry now of every delivery**: the subscription's retrying deliveries of messages published
  until the job started become due now (roomcast.jobs.retry_now), a page of messages per step.
- **Room deletion**: the room's subscriptions go a few per step (roomcast.jobs.removal), then
  the room.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from roomcast.catalog import Catalog, Subscription
from roomcast.dead_letters import DeadLetterRecords, Replayer
from roomcast.endings import end_cleared, messages_of
from roomcast.jobs.model import Job, JobCount, JobKind, Progress
from roomcast.jobs.removal import remove_subscriptions
from roomcast.jobs.retry_now import RetryNow
from roomcast.log import LogSink
from roomcast.messages import MessageRecords, OwedFilter
from roomcast.outbox import ROOM_DELETED, OutboxQueue
from roomcast.platform import MAX_PAGE_SIZE, NotFound, Position, iso_from_ms
from roomcast.pull import PullQueueAdmin

if TYPE_CHECKING:
    from roomcast.messages import DeliveryPage

CLEARED: Final = "cleared by Clear All"
# Subscriptions a room deletion removes per step (each: a transaction and two queue deletions).
SUBSCRIPTIONS_PER_STEP: Final = 10
_DONE: Final = Progress({}, None, done=True)


@dataclass
class JobSteps:
    catalog: Catalog
    messages: MessageRecords
    dead_letters: DeadLetterRecords
    queues: PullQueueAdmin
    replayer: Replayer
    retrier: RetryNow
    outbox: OutboxQueue
    log: LogSink

    def advance(self, job: Job) -> Progress:
        """Do the job's next page of work."""
        if job.kind is JobKind.DELETE_ROOM:
            return self._delete_room(job)
        subscription = self._subscription(job)
        if subscription is None:  # deleted meanwhile: its own sweep ends what it still owed
            return _DONE
        if job.kind is JobKind.CLEAR_DELIVERIES:
            return self._clear(job, subscription)
        if job.kind is JobKind.RETRY_DELIVERIES:
            return self._retry(job, subscription)
        return self._dead_letters(job, subscription)

    def _clear(self, job: Job, subscription: Subscription) -> Progress:
        page = self._open_deliveries(job, subscription)
        cleared = end_cleared(self.messages, self.log, job.tenant_id, page.found, CLEARED, page.messages)
        counts: dict[str, int] = {JobCount.EXAMINED: len(page.found), JobCount.CLEARED: cleared}
        return _progress(counts, page.next_position)

    def _retry(self, job: Job, subscription: Subscription) -> Progress:
        page = self._open_deliveries(job, subscription)
        stored = messages_of(self.messages, job.tenant_id, page.found, page.messages)
        found = [(stored[m], record) for m, record in page.found if m in stored]
        retried = self.retrier.retry(subscription, found)
        counts: dict[str, int] = {JobCount.EXAMINED: len(page.found), JobCount.RETRIED: len(retried)}
        return _progress(counts, page.next_position)

    def _open_deliveries(self, job: Job, subscription: Subscription) -> DeliveryPage:
        """A page of the subscription's open deliveries of messages published until the job began."""
        owed = OwedFilter(job.room_id, {subscription.id: subscription.type}, iso_from_ms(job.since_ms))
        return self.messages.open_deliveries(job.tenant_id, owed, _position(job), MAX_PAGE_SIZE)

    def _dead_letters(self, job: Job, subscription: Subscription) -> Progress:
        """A page of a purge or a replay: the letters of the page that died before the job (and
        within its window) are deleted or replayed."""
        page = self.dead_letters.page(
            job.tenant_id, job.room_id, subscription.id, MAX_PAGE_SIZE, _position(job)
        )
        newest = iso_from_ms(job.since_ms)
        since, until = job.window
        chosen = [
            letter.envelope.message_id
            for letter in page.items
            if letter.dead_at <= newest
            and (since is None or letter.dead_at >= since)
            and (until is None or letter.dead_at <= until)
        ]
        counts: dict[str, int] = {JobCount.EXAMINED: len(page.items)}
        if job.kind is JobKind.PURGE_DEAD_LETTERS:
            self.dead_letters.delete(job.tenant_id, job.room_id, subscription.id, chosen)
            counts[JobCount.PURGED] = len(chosen)
            if page.next_position is None and subscription.dead_letter_queue_url:
                self.queues.purge(subscription.dead_letter_queue_url)
        elif chosen:
            outcome = self.replayer.replay(subscription, chosen)
            counts[JobCount.REPLAYED] = len(outcome.replayed)
            counts[JobCount.ALREADY_REPLAYING] = len(outcome.held_elsewhere)
        return _progress(counts, page.next_position)

    def _delete_room(self, job: Job) -> Progress:
        subscriptions = self.catalog.all_subscriptions(job.tenant_id, job.room_id)
        now = subscriptions[:SUBSCRIPTIONS_PER_STEP]
        last = len(subscriptions) <= SUBSCRIPTIONS_PER_STEP
        remove_subscriptions(
            self.catalog,
            self.queues,
            self.outbox,
            now,
            ROOM_DELETED,
            then=(lambda: self.catalog.delete_room(job.tenant_id, job.room_id)) if last else (lambda: None),
        )
        counts: dict[str, int] = {JobCount.EXAMINED: len(now), JobCount.SUBSCRIPTIONS_DELETED: len(now)}
        return Progress(counts, None, done=last)

    def _subscription(self, job: Job) -> Subscription | None:
        try:
            return self.catalog.get_subscription(job.tenant_id, job.room_id, job.subscription_id or "")
        except NotFound:
            return None


def _position(job: Job) -> Position | None:
    return (job.position,) if job.position is not None else None


def _progress(counts: dict[str, int], next_position: Position | None) -> Progress:
    return Progress(counts, next_position[0] if next_position else None, done=next_position is None)
