"""Jobs: the bulk actions whose work grows with the data (Clear All, purging and replaying dead
letters by range, deleting a room) run as a job, a page at a time, by the outbox function
(docs/decisions/0033-bulk-actions-as-jobs.md). The request that starts one does only what is
bounded (checks, a watermark, a deletion mark) and answers 202 with the job to poll.

Pure: what a job is, how it advances, and its counts."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from roomcast.platform import DAY_MS

# A job's record is kept this long after it was last changed (its TTL).
JOB_KEPT_MS: Final = 7 * DAY_MS
# A job step that raised is tried again (the task comes back from SQS) this many times in all;
# the last failure ends the job ``failed`` with its error, rather than leave it running for ever.
JOB_STEP_TRIES: Final = 5


class JobKind(StrEnum):
    CLEAR_DELIVERIES = "clear-deliveries"
    PURGE_DEAD_LETTERS = "purge-dead-letters"
    REPLAY_DEAD_LETTERS = "replay-dead-letters"
    DELETE_ROOM = "delete-room"
    RETRY_DELIVERIES = "retry-deliveries"


class JobState(StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class JobCount(StrEnum):
    """What a job counts (each kind its own): deliveries ended, letters purged or replayed (or held
    by another replay at that moment), subscriptions deleted; and what it looked at."""

    EXAMINED = "examined"
    CLEARED = "cleared"
    PURGED = "purged"
    REPLAYED = "replayed"
    ALREADY_REPLAYING = "alreadyReplaying"
    SUBSCRIPTIONS_DELETED = "subscriptionsDeleted"
    RETRIED = "retried"


@dataclass(frozen=True)
class Job:
    """One bulk action. ``since_ms`` is its starting point in time: Clear All's watermark, and for
    purges and replays the newest letter it touches (letters that die while it runs are not its
    business); ``window`` limits a replay to letters that died within it (ISO texts, inclusive;
    None = open). ``position`` is where its walk goes on (None: from the start); ``steps``
    counts the pages done, and a step is saved only over the step it read."""

    id: str
    tenant_id: str
    kind: JobKind
    room_id: str
    subscription_id: str | None
    created_at_ms: int
    since_ms: int
    window: tuple[str | None, str | None] = (None, None)
    state: JobState = JobState.RUNNING
    counts: dict[str, int] = field(default_factory=dict)
    position: str | None = None
    steps: int = 0
    updated_at_ms: int = 0
    finished_at_ms: int | None = None
    error: str | None = None

    @property
    def finished(self) -> bool:
        return self.state is not JobState.RUNNING

    def advanced(self, progress: Progress, now_ms: int) -> Job:
        """The job after one more step: its counts added, its position moved, finished when the
        step found nothing more to do."""
        counts = dict(self.counts)
        for name, value in progress.counts.items():
            counts[name] = counts.get(name, 0) + value
        return replace(
            self,
            counts=counts,
            position=progress.position,
            steps=self.steps + 1,
            updated_at_ms=now_ms,
            state=JobState.SUCCEEDED if progress.done else JobState.RUNNING,
            finished_at_ms=now_ms if progress.done else None,
        )

    def failed(self, error: str, now_ms: int) -> Job:
        return replace(
            self,
            state=JobState.FAILED,
            error=error[:1024],
            steps=self.steps + 1,
            updated_at_ms=now_ms,
            finished_at_ms=now_ms,
        )


@dataclass(frozen=True)
class Progress:
    """What one step did: counts to add, where the next step starts, whether the job is done."""

    counts: dict[str, int]
    position: str | None
    done: bool
