"""Jobs in DynamoDB, one item each (roomcast.jobs.model):

| PK                                 | SK    |
| ---------------------------------- | ----- |
| ``TENANT#<tenant>#JOB#<jobId>``    | ``JOB`` |

Its own partition per job: no key is shared by two tenants' jobs, or by two jobs. A step is saved
only over the step it read (``steps``), so a task that came back twice advances the job once.
Kept JOB_KEPT_MS after its last change (the table's ``ttl``).
"""

from __future__ import annotations

import re
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.jobs.model import JOB_KEPT_MS, Job, JobKind, JobState
from roomcast.platform import TableAccess, ids, is_condition_failure, items, key

_JOB_ID: Final = re.compile(ids.JOB_ID_PATTERN)
_SORT_KEY: Final = "JOB"


def job_partition_key(tenant_id: str, job_id: str) -> str:
    return f"TENANT#{tenant_id}#JOB#{job_id}"


def job_to_item(job: Job) -> items.Item:
    since, until = job.window
    return {
        "PK": job_partition_key(job.tenant_id, job.id),
        "SK": _SORT_KEY,
        "entity": "job",
        "kind": job.kind.value,
        "roomId": job.room_id,
        "subscriptionId": job.subscription_id,
        "createdAtMs": job.created_at_ms,
        "sinceMs": job.since_ms,
        "windowSince": since,
        "windowUntil": until,
        "state": job.state.value,
        "counts": dict(job.counts),
        "position": job.position,
        "steps": job.steps,
        "updatedAtMs": job.updated_at_ms,
        "finishedAtMs": job.finished_at_ms,
        "error": job.error,
        "ttl": (max(job.updated_at_ms, job.created_at_ms) + JOB_KEPT_MS) // 1000,
    }


def job_from_item(item: items.Item) -> Job:
    finished = item.get("finishedAtMs")
    return Job(
        id=str(item["PK"]).rpartition("#JOB#")[2],
        tenant_id=str(item["PK"]).removeprefix("TENANT#").rpartition("#JOB#")[0],
        kind=JobKind(item["kind"]),
        room_id=str(item["roomId"]),
        subscription_id=item.get("subscriptionId"),
        created_at_ms=int(item["createdAtMs"]),
        since_ms=int(item["sinceMs"]),
        window=(item.get("windowSince"), item.get("windowUntil")),
        state=JobState(item["state"]),
        counts={str(name): int(value) for name, value in (item.get("counts") or {}).items()},
        position=item.get("position"),
        steps=int(item["steps"]),
        updated_at_ms=int(item["updatedAtMs"]),
        finished_at_ms=int(finished) if finished is not None else None,
        error=item.get("error"),
    )


class JobTable(TableAccess):
    def create(self, job: Job) -> None:
        self._client.put_item(
            TableName=self._table_name,
            Item=items.to_attributes(job_to_item(job)),
            ConditionExpression="attribute_not_exists(PK)",
        )

    def get(self, tenant_id: str, job_id: str) -> Job | None:
        """The job, read strongly consistently; None for no such job of this tenant."""
        if not _JOB_ID.match(job_id):
            return None
        response = self._client.get_item(
            TableName=self._table_name,
            Key=key(job_partition_key(tenant_id, job_id), _SORT_KEY),
            ConsistentRead=True,
        )
        return job_from_item(items.from_attributes(response["Item"])) if "Item" in response else None

    def save(self, job: Job, read_steps: int) -> bool:
        """Write the job's new state if it is still at the step it was read at (False otherwise:
        another run of the same task advanced it)."""
        values: dict[str, Any] = {":read": {"N": str(read_steps)}}
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(job_to_item(job)),
                ConditionExpression="steps = :read",
                ExpressionAttributeValues=values,
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True
