"""``client.jobs``: the bulk actions that run in the background (Clear All, purging and replaying
dead letters, deleting a room): read one, or wait until it has finished."""

from __future__ import annotations

from roomcast_client._core import Call, read_model, segment
from roomcast_client._executors import E, Resource, operation, polled
from roomcast_client.job import Job


class Jobs(Resource[E]):
    @operation
    def get(self, job_id: str) -> Call[Job]:
        """The job as it is now (``state``: running, succeeded or failed; ``counts``)."""
        return Call("GET", f"/jobs/{segment(job_id)}", read_model(Job))

    wait = polled(get.build, until=lambda job: job.finished)
