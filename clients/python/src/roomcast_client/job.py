"""A job: a bulk action the API runs in the background (Clear All, purging or replaying dead letters
by range, deleting a room). The call that starts one answers it at once; ``client.jobs.wait(job.id)``
reads it again until it has finished. Its fields are the API's ``JobView`` (generated,
``_generated/models.py``); ``JobCounts`` is what it has done so far, each kind of job filling its
own counts (the others are None)."""

from __future__ import annotations

from roomcast_client._generated.models import JobCounts, JobView

__all__ = ["Job", "JobCounts"]


class Job(JobView):
    """A bulk action in the background (Clear All, retry now of all, purge, replay, room deletion):
    ``jobs.wait``."""

    @property
    def finished(self) -> bool:
        return self.state != "running"
