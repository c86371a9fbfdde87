"""A job: a bulk action the API runs in the background (Clear All, purging or replaying dead letters
by range, deleting a room). The call that starts one answers it at once; ``client.jobs.wait(job.id)``
reads it again until it has finished."""

from __future__ import annotations

from typing import Literal

from roomcast_client.models import ApiModel


class JobCounts(ApiModel):
    """What a job has done so far; each kind of job fills its own counts (the others are None)."""

    examined: int = 0
    cleared: int | None = None
    purged: int | None = None
    replayed: int | None = None
    already_replaying: int | None = None
    subscriptions_deleted: int | None = None
    retried: int | None = None


class Job(ApiModel):
    """A bulk action in the background (Clear All, retry now of all, purge, replay, room deletion):
    ``jobs.wait``."""

    id: str
    kind: str
    state: Literal["running", "succeeded", "failed"]
    room_id: str
    subscription_id: str | None = None
    created_at: str
    updated_at: str
    finished_at: str | None = None
    counts: JobCounts
    error: str | None = None

    @property
    def finished(self) -> bool:
        return self.state != "running"
