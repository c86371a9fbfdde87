"""Deliver-at against moto, in simulated time: a scheduled message is stored at once and listed,
sent to nobody before its time and to every destination at it (through hops of the outbox queue,
or past the crossover through a one-time schedule and one last hop); a cancelled one never; a
release that could not be armed is armed by the outbox; two releases of one message send once."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
import time_machine

from roomcast.outbox.queue import OutboxQueue
from roomcast.outbox.tasks import Release
from roomcast_dev.local_aws import queue_url_for
from roomcast_dev.schedules import fire_due
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import EventSourceMapping, run_outbox_tasks, webhook_server
from tests.integration.test_outbox import outbox_records, push_queue_bodies
from tests.support import FakeLambdaContext, api_event

START = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)
MINUTE_S, HOUR_S, DAY_S = 60, 3600, 86_400


def _answer(handler: Handler, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    return response["statusCode"], json.loads(response["body"]) if response.get("body") else None


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    status, answer = _answer(handler, method, path, body)
    assert status < 300, answer
    return answer


@contextmanager
def _clock() -> Iterator[Any]:
    with time_machine.travel(START, tick=False) as clock:
        yield clock


def _later(clock: Any, seconds: float) -> None:
    clock.move_to(datetime.fromtimestamp(time.time() + seconds, UTC))


@pytest.fixture
def room(function_handler: Callable[[str], Handler]) -> dict[str, Any]:
    """A room (messages expire an hour after their time) with a PUSH and a PULL subscription."""
    manage = function_handler("ManagementFunction")
    made = _call(manage, "POST", "/rooms", {"name": "reminders", "messageExpirationMs": HOUR_S * 1000})
    push = _call(
        manage,
        "POST",
        f"/rooms/{made['id']}/subscriptions",
        {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/"},
    )
    pull = _call(manage, "POST", f"/rooms/{made['id']}/subscriptions", {"type": "PULL"})
    return {**made, "push": push["id"], "pull": pull["id"]}


def _publish(function_handler: Callable[[str], Handler], room: dict[str, Any], **when: Any) -> Any:
    body = {"eventType": "invoice.reminder", "eventVersion": "1", "payload": {"invoiceId": 7}, **when}
    return _call(function_handler("PublishFunction"), "POST", f"/rooms/{room['id']}/messages", body)


def _pulled(function_handler: Callable[[str], Handler], room: dict[str, Any]) -> list[str]:
    path = f"/rooms/{room['id']}/subscriptions/{room['pull']}/pull"
    return [m["messageId"] for m in _call(function_handler("PullFunction"), "POST", path, {})["messages"]]


def _outbox(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> int:
    """Run the outbox's due tasks (releases, and the publishes' checks): how many releases still wait."""
    run_outbox_tasks(stack_model, function_handler("OutboxFunction"))
    queue_url = stack_model.functions["OutboxFunction"].environment["OUTBOX_QUEUE_URL"]
    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessagesDelayed"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessagesDelayed"])


def test_a_scheduled_message_waits_in_hops_and_reaches_every_destination_at_its_time(
    stack_model: StackModel, function_handler: Callable[[str], Handler], room: dict[str, Any]
) -> None:
    manage = function_handler("ManagementFunction")
    with _clock() as clock:
        # When: published to be delivered in 20 minutes
        published = _publish(function_handler, room, deliverAfterMs=20 * MINUTE_S * 1000)
        message_id = published["messageId"]
        due = (START + timedelta(minutes=20)).isoformat(timespec="milliseconds").replace("+00:00", "Z")

        # Then: stored, scheduled, listed; its expiry counts from its time
        assert published["deliverAt"] == due
        status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{message_id}")
        assert {(d["status"], d["nextAttemptAt"]) for d in status["deliveries"]} == {("scheduled", due)}
        assert status["expiresAt"] == (START + timedelta(minutes=80)).isoformat(
            timespec="milliseconds"
        ).replace("+00:00", "Z")
        listed = _call(manage, "GET", f"/rooms/{room['id']}/messages?status=scheduled")
        assert [m["messageId"] for m in listed["messages"]] == [message_id]

        # Nothing is sent before its time: at 15 minutes the release comes back early and waits on
        _later(clock, 15 * MINUTE_S + 1)
        assert _outbox(stack_model, function_handler) == 1
        assert push_queue_bodies(stack_model) == []
        assert _pulled(function_handler, room) == []
        _later(clock, 4 * MINUTE_S + 58)
        assert _outbox(stack_model, function_handler) == 1

        # At its time: one envelope per destination, due then; no longer scheduled
        _later(clock, 2)
        assert _outbox(stack_model, function_handler) == 0
        [envelope] = push_queue_bodies(stack_model)
        assert (envelope["message_id"], envelope["due_at_ms"]) == (
            message_id,
            int((START + timedelta(minutes=20)).timestamp() * 1000),
        )
        assert _pulled(function_handler, room) == [message_id]
        status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{message_id}")
        assert {d["subscriptionId"]: d["status"] for d in status["deliveries"]}[room["push"]] == "pending"
        assert _call(manage, "GET", f"/rooms/{room['id']}/messages?status=scheduled")["messages"] == []


def test_a_long_wait_is_carried_by_a_schedule_that_fires_before_its_time(
    stack_model: StackModel, function_handler: Callable[[str], Handler], room: dict[str, Any]
) -> None:
    scheduler, sqs = boto3.client("scheduler"), boto3.client("sqs")
    [group] = stack_model.schedule_groups.values()
    outbox_url = stack_model.functions["OutboxFunction"].environment["OUTBOX_QUEUE_URL"]
    endpoint = outbox_url.rsplit("/", 2)[0]
    with _clock() as clock:
        # When: published for three days ahead
        message_id = _publish(function_handler, room, deliverAfterMs=3 * DAY_S * 1000)["messageId"]

        # Then: one schedule, five minutes early, and nothing waiting on the outbox queue (once
        # the publish's check has run)
        _later(clock, 61)
        [listed] = scheduler.list_schedules(GroupName=group)["Schedules"]
        schedule = scheduler.get_schedule(Name=listed["Name"], GroupName=group)
        assert schedule["ScheduleExpression"] == "at(2026-11-25T07:55:00)"
        assert json.loads(schedule["Target"]["Input"])["messageId"] == message_id
        assert _outbox(stack_model, function_handler) == 0

        # The local scheduler fires it at its time, not before; the release waits the last stretch
        def fire() -> int:
            return fire_due(
                scheduler, sqs, group, lambda n: queue_url_for(endpoint, n), int(time.time() * 1000)
            )

        _later(clock, 3 * DAY_S - 5 * MINUTE_S - 62)
        assert fire() == 0
        _later(clock, 1)
        assert fire() == 1
        assert _outbox(stack_model, function_handler) == 1
        assert push_queue_bodies(stack_model) == []
        _later(clock, 5 * MINUTE_S)
        assert _outbox(stack_model, function_handler) == 0
        assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [message_id]
        assert scheduler.list_schedules(GroupName=group)["Schedules"] == []


def test_a_cancelled_message_is_never_sent_and_cancelling_is_refused_once_released(
    stack_model: StackModel, function_handler: Callable[[str], Handler], room: dict[str, Any]
) -> None:
    manage = function_handler("ManagementFunction")
    with _clock() as clock:
        cancelled = _publish(function_handler, room, deliverAfterMs=60_000)["messageId"]
        kept = _publish(function_handler, room, deliverAfterMs=60_000)["messageId"]
        at_once = _publish(function_handler, room)["messageId"]
        path = f"/rooms/{room['id']}/messages/"

        # When: one is cancelled (twice: the same answer)
        first = _call(manage, "DELETE", path + cancelled)
        again = _call(manage, "DELETE", path + cancelled)

        # Then: its deliveries ended cancelled, it is no longer listed as scheduled
        assert first == again
        assert first["cancelledAt"] == "2026-11-22T08:00:00.000Z"
        assert {d["status"] for d in first["deliveries"]} == {"cancelled"}
        listed = _call(manage, "GET", f"/rooms/{room['id']}/messages?status=scheduled")
        assert [m["messageId"] for m in listed["messages"]] == [kept]

        # At their time only the other is sent; then neither it nor one never scheduled can be cancelled
        push_queue_bodies(stack_model)  # the message published at once
        _pulled(function_handler, room)
        _later(clock, 61)
        assert _outbox(stack_model, function_handler) == 0
        assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [kept]
        for message_id in (kept, at_once):
            status, refused = _answer(manage, "DELETE", path + message_id)
            assert (status, refused["error"]["code"]) == (409, "not_scheduled")
        assert _answer(manage, "DELETE", path + "msg_" + "0" * 32)[0] == 404


def test_a_release_that_could_not_be_armed_is_armed_by_the_outbox(
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    room: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_release = OutboxQueue.release
    monkeypatch.setattr(OutboxQueue, "release", lambda queue, tasks, now_ms: list(tasks))
    with _clock() as clock:
        # Given: a scheduled message whose release SQS refused: it is left to the outbox
        message_id = _publish(function_handler, room, deliverAfterMs=60_000)["messageId"]
        records = outbox_records(stack_model)
        assert len(records) == 1

        # When: the outbox gets the stream record (SQS back)
        monkeypatch.setattr(OutboxQueue, "release", real_release)
        done = function_handler("OutboxFunction")({"Records": records}, FakeLambdaContext())
        assert done["batchItemFailures"] == []

        # Then: the release is armed, and sends at the time
        _later(clock, 61)
        assert _outbox(stack_model, function_handler) == 0
        assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [message_id]


def test_two_releases_of_one_message_send_it_once(
    stack_model: StackModel, function_handler: Callable[[str], Handler], room: dict[str, Any]
) -> None:
    with _clock() as clock:
        published = _publish(function_handler, room, deliverAfterMs=60_000)
        queue = stack_model.functions["OutboxFunction"].environment["OUTBOX_QUEUE_URL"]
        due_ms = int(time.time() * 1000) + 60_000
        # A second release (a publish check re-arming it) on the queue beside the first
        second = Release("acme", room["id"], published["messageId"], due_ms, "rel_" + "f" * 32)
        boto3.client("sqs").send_message(QueueUrl=queue, MessageBody=second.to_json(), DelaySeconds=60)

        _later(clock, 61)
        assert _outbox(stack_model, function_handler) == 0
        assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [published["messageId"]]


@pytest.mark.parametrize(
    ("when", "code"),
    [
        ({"deliverAt": "2026-11-22T09:00:00Z", "deliverAfterMs": 1000}, "validation_error"),
        ({"deliverAt": "2027-11-23T08:00:00Z"}, "deliver_at_out_of_range"),
        ({"deliverAt": "2026-11-22T07:50:00+00:00"}, "deliver_at_out_of_range"),
        ({"deliverAt": "2026-11-22T09:00:00"}, "validation_error"),
        ({"deliverAfterMs": -1}, "validation_error"),
        ({"deliverAfterMs": "60000"}, "validation_error"),
    ],
)
def test_a_time_out_of_range_or_malformed_is_refused_and_nothing_is_stored(
    function_handler: Callable[[str], Handler], room: dict[str, Any], when: dict[str, Any], code: str
) -> None:
    publish = function_handler("PublishFunction")
    body = {"eventType": "invoice.reminder", "eventVersion": "1", "payload": 1, **when}
    with _clock():
        status, refused = _answer(publish, "POST", f"/rooms/{room['id']}/messages", body)
        listed = _call(function_handler("ManagementFunction"), "GET", f"/rooms/{room['id']}/messages")
    assert (status, refused["error"]["code"]) == (422, code), refused
    assert listed["messages"] == []


def test_a_batch_schedules_some_and_sends_the_others_at_once(
    stack_model: StackModel, function_handler: Callable[[str], Handler], room: dict[str, Any]
) -> None:
    messages = [
        {"eventType": "invoice.reminder", "eventVersion": "1", "payload": n, "deliverAfterMs": n * 60_000}
        for n in (0, 2, 40)
    ]
    with _clock() as clock:
        answer = _call(
            function_handler("PublishFunction"),
            "POST",
            f"/rooms/{room['id']}/messages/batch",
            {"messages": messages},
        )
        now_id, soon_id, later_id = (r["messageId"] for r in answer["results"])
        assert [r["deliverAt"] is None for r in answer["results"]] == [True, False, False]
        assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [now_id]
        _later(clock, 2 * MINUTE_S)
        _outbox(stack_model, function_handler)
        assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [soon_id]
        assert later_id not in _pulled(function_handler, room)


def test_with_long_retries_on_the_scheduler_a_two_hour_retry_wait_is_one_schedule_not_eight_hops(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    from roomcast.platform.config import load_settings

    manage = function_handler("ManagementFunction")
    scheduler, sqs = boto3.client("scheduler"), boto3.client("sqs")
    [group] = stack_model.schedule_groups.values()
    push_url = stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
    endpoint = push_url.rsplit("/", 2)[0]
    with webhook_server([500, 200]) as webhook, _clock() as clock:
        # Given: the template parameter on, a room retrying after 2 hours, an endpoint failing once
        room = _call(manage, "POST", "/rooms", {"name": "slow", "deliveryDelayMs": 2 * HOUR_S * 1000})
        _call(
            manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": webhook.url()}
        )
        push = EventSourceMapping(sqs, push_url, function_handler("PushFunction"))
        _call(
            function_handler("PublishFunction"),
            "POST",
            f"/rooms/{room['id']}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": 1},
        )
        monkeypatch.setenv("LONG_RETRIES_ON_SCHEDULER", "true")  # the publish's load set the template's value
        load_settings.cache_clear()

        # When: the first attempt fails
        assert push.poll_once() == 1

        # Then: the retry waits on one schedule (five minutes early), nothing on the push queue
        [listed] = scheduler.list_schedules(GroupName=group)["Schedules"]
        schedule = scheduler.get_schedule(Name=listed["Name"], GroupName=group)
        assert schedule["ScheduleExpression"] == "at(2026-11-22T09:55:00)"
        assert schedule["Target"]["Arn"].endswith(push_url.rsplit("/", 1)[1])
        assert push.poll_once() == 0

        # ... fired at its time, the push function hops the last five minutes, then the attempt succeeds
        _later(clock, 2 * HOUR_S - 5 * MINUTE_S)
        assert (
            fire_due(scheduler, sqs, group, lambda n: queue_url_for(endpoint, n), int(time.time() * 1000))
            == 1
        )
        assert push.poll_once() == 1  # early: hopped
        assert len(webhook.requests) == 1
        _later(clock, 5 * MINUTE_S)
        assert push.poll_once() == 1
        assert [r.arrived_at - webhook.requests[0].arrived_at for r in webhook.requests] == [0, 2 * HOUR_S]


def test_another_tenant_finds_neither_the_scheduled_list_nor_the_message_and_bad_input_changes_nothing(
    function_handler: Callable[[str], Handler], room: dict[str, Any]
) -> None:
    manage = function_handler("ManagementFunction")
    with _clock():
        message_id = _publish(function_handler, room, deliverAfterMs=60_000)["messageId"]
        messages = f"/rooms/{room['id']}/messages"

        def as_other(method: str, path: str) -> tuple[int, Any]:
            response = manage(api_event(method, path, None, tenant="someone-else"), FakeLambdaContext())
            return response["statusCode"], json.loads(response["body"])

        # Another tenant: 404, as for a room or message that does not exist
        assert as_other("GET", f"{messages}?status=scheduled")[0] == 404
        assert as_other("DELETE", f"{messages}/{message_id}")[0] == 404
        # Bad input: a status the list does not know, a malformed message id
        status, refused = _answer(manage, "GET", f"{messages}?status=pending")
        assert (status, refused["error"]["code"]) == (422, "validation_error")
        assert _answer(manage, "DELETE", f"{messages}/not-a-message-id")[0] == 404

        # Nothing changed: still scheduled, listed
        listed = _call(manage, "GET", f"{messages}?status=scheduled")
        assert [(m["messageId"], m["cancelledAt"]) for m in listed["messages"]] == [(message_id, None)]
