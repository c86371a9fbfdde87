"""EventBridge Scheduler, locally: moto keeps the template's schedule groups and the schedules the
functions make, but fires none. ``SchedulePoller`` does what the scheduler does for a one-time
``at()`` schedule with an SQS target: once its time has come, it sends the target's input to the
queue the target names, then deletes the schedule (``ActionAfterCompletion: DELETE``, the only
kind roomcast makes). ``fire_due`` is that one step, for tests that move time."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from roomcast_dev.pollers import Poller

POLL_SECONDS = 0.5
_AT = re.compile(r"^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$")


def fires_at_ms(expression: str) -> int | None:
    """When a one-time ``at(yyyy-mm-ddThh:mm:ss)`` schedule fires (UTC); None for another kind."""
    found = _AT.match(expression)
    if found is None:
        return None
    return int(datetime.fromisoformat(found.group(1)).replace(tzinfo=UTC).timestamp() * 1000)


def fire_due(scheduler: Any, sqs: Any, group_name: str, queue_url: Callable[[str], str], now_ms: int) -> int:
    """Fire every schedule of ``group_name`` whose time has come: its input to its queue (by the
    queue's name, the end of the target's ARN), then the schedule deleted. How many fired."""
    fired = 0
    for page in scheduler.get_paginator("list_schedules").paginate(GroupName=group_name):
        for listed in page.get("Schedules", []):
            schedule = scheduler.get_schedule(Name=listed["Name"], GroupName=group_name)
            due = fires_at_ms(schedule["ScheduleExpression"])
            if due is None or due > now_ms:
                continue
            target = schedule["Target"]
            queue_name = target["Arn"].rpartition(":")[2]
            sqs.send_message(QueueUrl=queue_url(queue_name), MessageBody=target.get("Input", ""))
            scheduler.delete_schedule(Name=listed["Name"], GroupName=group_name)
            fired += 1
    return fired


class SchedulePoller(Poller):
    """Fires the due schedules of the stack's schedule groups, twice a second."""

    kind = "scheduler"

    def __init__(
        self,
        group_names: list[str],
        client_factory: Callable[[str], Any],
        queue_url: Callable[[str], str],
    ) -> None:
        super().__init__("EventBridgeScheduler", threads=1, join_seconds=5.0)
        self._group_names = group_names
        self._client_factory = client_factory
        self._queue_url = queue_url

    def _open(self) -> tuple[Any, Any]:
        return self._client_factory("scheduler"), self._client_factory("sqs")

    def _step(self, clients: Any) -> None:
        scheduler, sqs = clients
        for group_name in self._group_names:
            self.invocations += fire_due(scheduler, sqs, group_name, self._queue_url, int(time.time() * 1000))
        time.sleep(POLL_SECONDS)
