"""A job as the API shows it (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Final, Literal, cast

from aws_lambda_powertools.event_handler import Response
from pydantic import BaseModel, Field

from roomcast.access import RouteAccess
from roomcast.api import Decorator, Routes, examples, link
from roomcast.jobs import Job, JobCount, JobKind
from roomcast.platform import iso_from_ms

# What each kind of job counts, besides what it examined.
_COUNTED: Final = {
    JobKind.CLEAR_DELIVERIES: (JobCount.CLEARED,),
    JobKind.PURGE_DEAD_LETTERS: (JobCount.PURGED,),
    JobKind.REPLAY_DEAD_LETTERS: (JobCount.REPLAYED, JobCount.ALREADY_REPLAYING),
    JobKind.DELETE_ROOM: (JobCount.SUBSCRIPTIONS_DELETED,),
    JobKind.RETRY_DELIVERIES: (JobCount.RETRIED,),
}


class JobCounts(BaseModel):
    """What the job has done so far; each kind of job fills its own counts (the others are null)."""

    examined: int = Field(description="Deliveries, dead letters or subscriptions looked at so far.")
    cleared: int | None = Field(
        default=None,
        description="Clear All: deliveries this job ended `cleared` (one whose envelope came out of "
        "SQS first was ended by the push function instead, and is not counted here).",
    )
    purged: int | None = Field(default=None, description="Purge: dead letters deleted.")
    replayed: int | None = Field(default=None, description="Replay: dead letters sent again.")
    alreadyReplaying: int | None = Field(
        default=None, description="Replay: letters another replay was sending at that moment."
    )
    subscriptionsDeleted: int | None = Field(
        default=None, description="Room deletion: subscriptions deleted."
    )
    retried: int | None = Field(
        default=None,
        description="Retry now: deliveries this job made due now (one another retry-now took first "
        "is counted there).",
    )


class JobView(BaseModel):
    model_config = examples(
        {
            "id": "job_3b7e0c5d2a1f4e6b8c9d0a1b2c3d4e5f",
            "kind": "clear-deliveries",
            "state": "succeeded",
            "roomId": "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
            "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
            "createdAt": "2026-11-22T10:00:00.000Z",
            "updatedAt": "2026-11-22T10:00:04.250Z",
            "finishedAt": "2026-11-22T10:00:04.250Z",
            "counts": {"examined": 1200, "cleared": 1187},
            "error": None,
        }
    )

    id: str
    kind: Literal[
        "clear-deliveries", "purge-dead-letters", "replay-dead-letters", "delete-room", "retry-deliveries"
    ]
    state: Literal["running", "succeeded", "failed"] = Field(
        description="`running` until every page is done; `failed` (with `error`) if a page kept failing."
    )
    roomId: str
    subscriptionId: str | None = None
    createdAt: str
    updatedAt: str
    finishedAt: str | None = None
    counts: JobCounts
    error: str | None = None

    @classmethod
    def of(cls, job: Job) -> JobView:
        counts = {name.value: job.counts.get(name.value, 0) for name in _COUNTED[job.kind]}
        return cls(
            id=job.id,
            kind=job.kind.value,
            state=job.state.value,
            roomId=job.room_id,
            subscriptionId=job.subscription_id,
            createdAt=iso_from_ms(job.created_at_ms),
            updatedAt=iso_from_ms(max(job.updated_at_ms, job.created_at_ms)),
            finishedAt=iso_from_ms(job.finished_at_ms) if job.finished_at_ms is not None else None,
            counts=JobCounts(examined=job.counts.get(JobCount.EXAMINED.value, 0), **counts),
            error=job.error,
        )


# The link every answer that starts a job carries to the job (OpenAPI links; also `Location`).
JOB_LINK = {"getJob": link("getJob", "How the job is getting on.", jobId="$response.body#/id")}


def accepted(job: Job) -> Response[JobView]:
    """202 with the job, and where to poll it."""
    return Response(
        status_code=202,
        content_type="application/json",
        body=JobView.of(job),
        headers={"Location": f"/jobs/{job.id}"},
    )


def named_or_all(
    routes: Routes,
    path: str,
    operation_id: str,
    answer: str,
    *errors: int,
    job: str,
    named: type[BaseModel],
    access: RouteAccess | None = None,
) -> Decorator:
    """A POST that acts on the items its body names before it answers (200, ``named``, ``answer``
    saying what), or, when the body names none, on all of them by a job (202, ``job`` saying which):
    answer with ``done`` or ``started``. ``access``: who may call it (roomcast.access)."""
    return routes.post(
        path, operation_id, answer, *errors, links=JOB_LINK, accepted=(job, JobView, named), access=access
    )


def done[A: BaseModel](named: A) -> Response[A | JobView]:
    """A ``named_or_all`` route's 200: what the named items came to."""
    return Response(status_code=200, content_type="application/json", body=named)


def started[A: BaseModel](job: Job) -> Response[A | JobView]:
    """A ``named_or_all`` route's 202: the job that acts on all of them."""
    return cast(Response[A | JobView], accepted(job))
