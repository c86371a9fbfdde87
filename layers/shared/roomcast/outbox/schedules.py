"""EventBridge Scheduler one-time schedules that put a scheduled message's ``Release`` task on the
outbox queue when its long wait is nearly over (roomcast.deliver_at.rules); with the template's
LongRetriesOnScheduler, also a PUSH retry's envelope back on its lane's queue. One schedule per
release (named by the release id) or per envelope's wait (named by a digest of what makes it
unique): a second create of the same is no new schedule. Deleted by the scheduler once it fired.
The local stack fires them itself (roomcast_dev.schedules), as it runs the template's other event
sources."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from roomcast.outbox.tasks import Release
from roomcast.platform import scheduler_client

if TYPE_CHECKING:
    from mypy_boto3_scheduler.type_defs import TargetTypeDef

# How long the scheduler retries putting a task on the queue, and how often, before it gives up
# and puts the task on the dead-letter queue (the outbox queue's, where operators look).
_MAX_EVENT_AGE_SECONDS: Final = 86_400


def at_expression(fires_at_ms: int) -> str:
    """A one-time schedule's expression: ``at(yyyy-mm-ddThh:mm:ss)``, in UTC."""
    moment = datetime.fromtimestamp(fires_at_ms // 1000, UTC)
    return f"at({moment:%Y-%m-%dT%H:%M:%S})"


@dataclass(frozen=True)
class ReleaseSchedules:
    group_name: str
    queue_arn: str  # the outbox queue's
    role_arn: str  # what the scheduler sends to the queue as
    dead_letter_arn: str = ""
    client: Any = field(default=None, compare=False)

    def create(self, task: Release, fires_at_ms: int) -> None:
        """A schedule putting ``task`` on the outbox queue at ``fires_at_ms`` (to the second);
        an existing schedule of the same release stays as it is."""
        description = f"release {task.message_id} of {task.tenant_id}"
        self.carry(task.release_id, self.queue_arn, task.to_json(), fires_at_ms, description)

    def carry(self, name: str, queue_arn: str, body: str, fires_at_ms: int, description: str) -> None:
        """A schedule sending ``body`` to the queue ``queue_arn`` at ``fires_at_ms``."""
        target: TargetTypeDef = {
            "Arn": queue_arn,
            "RoleArn": self.role_arn,
            "Input": body,
            "RetryPolicy": {"MaximumEventAgeInSeconds": _MAX_EVENT_AGE_SECONDS, "MaximumRetryAttempts": 185},
        }
        if self.dead_letter_arn:
            target["DeadLetterConfig"] = {"Arn": self.dead_letter_arn}
        client = self.client or scheduler_client()
        try:
            client.create_schedule(
                Name=name,
                GroupName=self.group_name,
                ScheduleExpression=at_expression(fires_at_ms),
                ScheduleExpressionTimezone="UTC",
                FlexibleTimeWindow={"Mode": "OFF"},
                Target=target,
                ActionAfterCompletion="DELETE",
                Description=description[:512],
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConflictException":
                raise
