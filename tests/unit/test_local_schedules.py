"""The local stack's stand-in for EventBridge Scheduler (roomcast_dev.schedules): a one-time
schedule fires once its time has come, its input sent to the queue its target names, and is then
deleted; one not due, or of another kind, is left alone; the poller fires each group's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roomcast_dev.schedules import SchedulePoller, fire_due, fires_at_ms

DUE = "at(2026-11-22T10:00:00)"
DUE_MS = 1_795_341_600_000


@dataclass
class FakeScheduler:
    schedules: dict[str, dict[str, Any]]
    deleted: list[str] = field(default_factory=list)

    def get_paginator(self, name: str) -> Any:
        scheduler = self

        class Pages:
            def paginate(self, GroupName: str) -> list[dict[str, Any]]:
                return [{"Schedules": [{"Name": n} for n in scheduler.schedules]}]

        return Pages()

    def get_schedule(self, Name: str, GroupName: str) -> dict[str, Any]:
        return self.schedules[Name]

    def delete_schedule(self, Name: str, GroupName: str) -> None:
        self.deleted.append(Name)


@dataclass
class FakeSqs:
    sent: list[tuple[str, str]] = field(default_factory=list)

    def send_message(self, QueueUrl: str, MessageBody: str) -> None:
        self.sent.append((QueueUrl, MessageBody))


def _schedule(expression: str, body: str) -> dict[str, Any]:
    target = {"Arn": "arn:aws:sqs:us-east-1:123456789012:roomcast-local-OutboxQueue", "Input": body}
    return {"ScheduleExpression": expression, "Target": target}


def test_a_due_schedule_is_sent_to_its_queue_and_deleted_the_others_are_left() -> None:
    scheduler = FakeScheduler(
        {
            "due": _schedule(DUE, '{"kind":"release"}'),
            "later": _schedule("at(2026-11-22T10:00:01)", "{}"),
            "cron": _schedule("cron(0 9 * * ? *)", "{}"),
        }
    )
    sqs = FakeSqs()

    fired = fire_due(scheduler, sqs, "releases", lambda name: f"http://moto/{name}", DUE_MS)

    assert fired == 1
    assert sqs.sent == [("http://moto/roomcast-local-OutboxQueue", '{"kind":"release"}')]
    assert scheduler.deleted == ["due"]
    assert fires_at_ms(DUE) == DUE_MS
    assert fires_at_ms("rate(5 minutes)") is None


def test_the_poller_fires_each_group_s_due_schedules_in_a_step() -> None:
    scheduler, sqs = FakeScheduler({"due": _schedule(DUE, "{}")}), FakeSqs()
    poller = SchedulePoller(["a", "b"], lambda service: scheduler if service == "scheduler" else sqs, str)

    poller._step(poller._open())

    assert poller.invocations == 2  # the fake lists the schedule in both groups
    assert len(sqs.sent) == 2
