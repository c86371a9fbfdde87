"""/jobs/{jobId}: how a bulk action started elsewhere (202) is getting on."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path

from management_api.dependencies import Jobs
from management_api.jobs.models import JobView
from roomcast.api import Routes, Tenant

routes = Routes("jobs")

JobId = Annotated[
    str,
    Path(
        description="The job's id (`job_` and 32 hex digits).",
        examples=["job_3b7e0c5d2a1f4e6b8c9d0a1b2c3d4e5f"],
    ),
]


@routes.get("/jobs/<jobId>", "getJob", "The job and its progress", 404)
def get_job(jobId: JobId, tenant: Tenant, service: Jobs) -> JobView:
    """Read a job

    A bulk action that runs in the background (Clear All, purging or replaying dead letters by
    range, deleting a room): its state (`running`, `succeeded`, `failed`), what it has done so far
    and when it finished. Poll until it is no longer `running`. Kept 7 days after it last changed;
    another tenant's job is not found.
    """
    return JobView.of(service.get(tenant, jobId))
