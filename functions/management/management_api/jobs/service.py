"""Starting jobs, and reading them (roomcast.jobs.model).

A request that starts one does only what is bounded, then stores the job and sends its first task
to the outbox queue (Clear All, retry now of every delivery, purge, replay of a range, room
deletion): Clear All raises the subscription's watermark first (from then on no
envelope queued until now is delivered, whatever the job has reached), a room deletion marks the
room first (no subscription is added to it any more, and a second deletion answers the same job).
The outbox function does the rest, a page at a time (roomcast.jobs.steps)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from management_api.common import updated_now
from roomcast.catalog import Catalog, Subscription
from roomcast.jobs import Job, JobKind, JobRecords, require_push
from roomcast.outbox import OutboxQueue, RunJob
from roomcast.platform import NotFound, ids, iso_from_ms, now_ms


@dataclass
class JobsService:
    catalog: Catalog
    jobs: JobRecords
    outbox: OutboxQueue
    clock: Callable[[], int] = now_ms

    def get(self, tenant_id: str, job_id: str) -> Job:
        job = self.jobs.get(tenant_id, job_id)
        if job is None:
            raise NotFound(f"job {job_id[:80]} not found")
        return job

    def clear_deliveries(self, tenant_id: str, room_id: str, subscription_id: str) -> Job:
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        now = self.clock()
        self.catalog.raise_cleared_watermark(subscription, now, updated_now(subscription.updated_at))
        return self._start(_job(JobKind.CLEAR_DELIVERIES, subscription, now))

    def retry_deliveries(self, tenant_id: str, room_id: str, subscription_id: str) -> Job:
        """Start retrying now every delivery of a PUSH subscription that is retrying."""
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        require_push(subscription)
        return self._start(_job(JobKind.RETRY_DELIVERIES, subscription, self.clock()))

    def purge_dead_letters(self, tenant_id: str, room_id: str, subscription_id: str) -> Job:
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        return self._start(_job(JobKind.PURGE_DEAD_LETTERS, subscription, self.clock()))

    def replay_dead_letters(
        self, tenant_id: str, room_id: str, subscription_id: str, window: tuple[str | None, str | None]
    ) -> Job:
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        job = _job(JobKind.REPLAY_DEAD_LETTERS, subscription, self.clock())
        return self._start(replace(job, window=window))

    def delete_room(self, tenant_id: str, room_id: str) -> Job:
        """Start deleting a room (or answer the deletion already started)."""
        self.catalog.get_room(tenant_id, room_id)
        now = self.clock()
        new_id = ids.new_job_id()
        job_id = self.catalog.start_room_deletion(tenant_id, room_id, iso_from_ms(now), new_id)
        started = self.jobs.get(tenant_id, job_id)
        if started is None:  # this request's job (or an earlier one that died before storing it)
            return self._start(_job(JobKind.DELETE_ROOM, (tenant_id, room_id), now, job_id))
        if not started.finished:
            self.outbox.now(RunJob(tenant_id, job_id))  # nudged on: a second run of a step is harmless
        return started

    def _start(self, job: Job) -> Job:
        self.jobs.create(job)
        self.outbox.now(RunJob(job.tenant_id, job.id))
        return job

    def _subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.catalog.get_room(tenant_id, room_id)
        return self.catalog.get_subscription(tenant_id, room_id, subscription_id)


def _job(kind: JobKind, of: Subscription | tuple[str, str], now: int, job_id: str | None = None) -> Job:
    """A new job of a subscription, or of a room (tenant, room), starting now."""
    tenant_id, room_id, subscription_id = (
        (of.tenant_id, of.room_id, of.id) if isinstance(of, Subscription) else (*of, None)
    )
    return Job(
        job_id or ids.new_job_id(),
        tenant_id,
        kind,
        room_id,
        subscription_id,
        created_at_ms=now,
        since_ms=now,
        updated_at_ms=now,
    )
