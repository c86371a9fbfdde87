"""Commands that make several SDK calls, driven through the entry point with a fake SDK client:
--all follows every page, a dead-letter range is replayed by a job waited for, a batch with a
refused message exits 1, messages show --wait gives up with exit code 5, and an empty pull reads
its subscription (once) to say why; which metrics `roomcast metrics` reads, for which window; and
what `roomcast alerts` asks for: a rule's condition, scope and target from its options, a snooze's end."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from roomcast_cli import common, session
from roomcast_cli.main import run
from roomcast_client import Job


@dataclass
class FakePage:
    items: list[dict[str, Any]]
    next_cursor: str | None


@dataclass
class FakeRooms:
    pages: dict[str | None, FakePage]
    cursors_read: list[str | None] = field(default_factory=list)

    def list(self, *, limit: int | None = None, cursor: str | None = None) -> FakePage:
        self.cursors_read.append(cursor)
        return self.pages[cursor]


@dataclass
class FakeDeadLetters:
    started: Job | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)

    def replay_all(self, room_id: str, subscription_id: str, **window: Any) -> Job | None:
        self.calls.append(window)
        return self.started


@dataclass
class FakeJobs:
    answers: list[Job]
    reads: int = 0

    def get(self, job_id: str) -> Job:
        self.reads += 1
        return self.answers[self.reads - 1]


@dataclass
class FakeMessages:
    batch_answer: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    published: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    listed: list[dict[str, Any]] = field(default_factory=list)
    list_filters: list[dict[str, Any]] = field(default_factory=list)

    def publish_batch(self, room_id: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return self.batch_answer

    def publish(self, room_id: str, body: Any, **fields: Any) -> dict[str, Any]:
        self.published.append(fields)
        return {
            "messageId": "msg_1",
            "correlationId": "c",
            "destinations": [],
            "publishedAt": "t",
            "deliverAt": "2026-12-01T09:00:00.000Z",
        }

    def cancel(self, room_id: str, message_id: str) -> dict[str, Any]:
        self.cancelled.append(message_id)
        return self.status

    def get(self, room_id: str, message_id: str) -> dict[str, Any]:
        return self.status

    def list(self, room_id: str, **filters: Any) -> FakePage:
        self.list_filters.append(filters)
        return FakePage(self.listed, None)


METRICS: dict[str, Any] = {
    "resolution": "1m",
    "start": "2026-11-22T10:00:00.000Z",
    "end": "2026-11-22T10:01:00.000Z",
    "points": [],
    "summary": {"attempts": 0, "delivered": 0, "failedAttempts": 0},
    "backlog": {"open": 0, "oldestOpenAgeMs": None},
}


@dataclass
class FakeMetrics:
    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def subscription(self, room_id: str, subscription_id: str, **window: Any) -> dict[str, Any]:
        self.calls.append(("subscription", room_id, subscription_id, window))
        return METRICS

    def room(self, room_id: str, **window: Any) -> dict[str, Any]:
        self.calls.append(("room", room_id, window))
        return METRICS

    def tenant(self, **window: Any) -> dict[str, Any]:
        self.calls.append(("tenant", window))
        return METRICS


@dataclass
class FakeSubscriptions:
    subscription: dict[str, Any] = field(default_factory=dict)
    reads: list[tuple[str, str]] = field(default_factory=list)

    def get(self, room_id: str, subscription_id: str) -> dict[str, Any]:
        self.reads.append((room_id, subscription_id))
        return self.subscription


RULE: dict[str, Any] = {
    "id": "alr_1",
    "name": "orders failing",
    "scope": {"roomId": "room_1", "subscriptionId": "sub_1"},
    "condition": {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 10},
    "notify": {"webhookUrl": "https://ops.example.com/alerts"},
    "state": "firing",
    "value": 0.75,
    "changedAt": "2026-11-22T10:05:00.000Z",
    "snoozedUntil": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
}
ALERTS: dict[str, Any] = {
    "firing": [RULE],
    "recent": [{"ruleId": "alr_1", "name": "orders failing", "state": "firing", "value": 0.75,
                "at": "2026-11-22T10:05:00.000Z"}],
}  # fmt: skip


@dataclass
class FakeAlerts:
    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def list(self) -> dict[str, Any]:
        self.calls.append(("list",))
        return ALERTS

    def list_rules(self) -> dict[str, Any]:
        self.calls.append(("list_rules",))
        return {"alertRules": [RULE]}

    def create_rule(self, name: str, condition: Any, notify: Any, **scope: Any) -> dict[str, Any]:
        self.calls.append(("create_rule", name, condition, notify, scope))
        return {**RULE, "signingSecret": "whsec_alert"}

    def snooze(self, rule_id: str, until: str) -> dict[str, Any]:
        self.calls.append(("snooze", rule_id, until))
        return {**RULE, "snoozedUntil": until}

    def unsnooze(self, rule_id: str) -> dict[str, Any]:
        self.calls.append(("unsnooze", rule_id))
        return RULE

    def delete_rule(self, rule_id: str) -> None:
        self.calls.append(("delete_rule", rule_id))


@dataclass
class FakeClient:
    rooms: FakeRooms = field(default_factory=lambda: FakeRooms({}))
    dead_letters: FakeDeadLetters = field(default_factory=FakeDeadLetters)
    jobs: FakeJobs = field(default_factory=lambda: FakeJobs([]))
    messages: FakeMessages = field(default_factory=FakeMessages)
    metrics: FakeMetrics = field(default_factory=FakeMetrics)
    alerts: FakeAlerts = field(default_factory=FakeAlerts)
    subscriptions: FakeSubscriptions = field(default_factory=FakeSubscriptions)
    pulled: list[dict[str, Any]] = field(default_factory=list)

    def pull(self, room_id: str, subscription_id: str, **options: Any) -> list[dict[str, Any]]:
        return self.pulled


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeClient:
    # Output as a pipe gets it (roomcast_cli.output: 200 columns), whatever terminal width the test
    # runner's environment says (a pytest-xdist worker's COLUMNS folds the tables' cells).
    monkeypatch.delenv("COLUMNS", raising=False)
    client = FakeClient()
    monkeypatch.setattr(session.Session, "client", property(lambda _self: client))
    monkeypatch.setattr(common, "JOB_POLL_SECONDS", 0)
    monkeypatch.setenv("ROOMCAST_URL", "http://api.test")
    monkeypatch.setenv("ROOMCAST_API_KEY", "rc_test")
    monkeypatch.chdir(tmp_path)
    return client


def _room(number: int) -> dict[str, Any]:
    return {"id": f"room_{number}", "name": "orders"}


def test_all_follows_every_page(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    # Given three pages
    fake.rooms = FakeRooms(
        {None: FakePage([_room(1)], "c2"), "c2": FakePage([_room(2)], "c3"), "c3": FakePage([_room(3)], None)}
    )

    # When
    code = run(["rooms", "list", "--all", "--json"])

    # Then
    assert code == 0
    assert fake.rooms.cursors_read == [None, "c2", "c3"]
    assert json.loads(capsys.readouterr().out) == {
        "rooms": [_room(1), _room(2), _room(3)],
        "nextCursor": None,
    }


def test_without_all_one_page_and_its_cursor(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    fake.rooms = FakeRooms({None: FakePage([_room(1)], "c2")})
    assert run(["rooms", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"rooms": [_room(1)], "nextCursor": "c2"}


def _job(state: str, replayed: int, error: str | None = None) -> Job:
    counts = {"examined": replayed, "replayed": replayed, "alreadyReplaying": 0}
    return Job.model_validate(
        {
            "id": "job_1",
            "kind": "replay-dead-letters",
            "state": state,
            "roomId": "room_1",
            "subscriptionId": "sub_1",
            "createdAt": "2026-11-22T10:00:00.000Z",
            "updatedAt": "2026-11-22T10:00:01.000Z",
            "counts": counts,
            "error": error,
        }
    )


def test_a_range_is_replayed_by_one_job_waited_for_until_it_finished(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the API starts a replay job, which is read twice running, then finished
    fake.dead_letters = FakeDeadLetters(started=_job("running", 0))
    fake.jobs = FakeJobs([_job("running", 100), _job("running", 200), _job("succeeded", 230)])

    # When
    code = run(["dead-letters", "replay", "room_1", "sub_1", "--since", "2026-11-22T10:00:00Z", "--json"])

    # Then one job was started for the window, and the finished job is printed
    assert code == 0
    assert fake.dead_letters.calls == [{"since": "2026-11-22T10:00:00.000Z", "until": None}]
    assert fake.jobs.reads == 3
    printed = json.loads(capsys.readouterr().out)
    assert (printed["state"], printed["counts"]["replayed"]) == ("succeeded", 230)


def test_a_job_that_failed_ends_the_command_with_exit_code_4(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given
    fake.dead_letters = FakeDeadLetters(started=_job("running", 0))
    fake.jobs = FakeJobs([_job("failed", 3, error="ClientError: throttled")])

    # When
    code = run(["dead-letters", "replay", "room_1", "sub_1", "--all"])

    # Then
    assert code == 4
    assert "ClientError: throttled" in capsys.readouterr().err


def test_a_batch_with_a_refused_message_prints_the_results_and_exits_1(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given
    fake.messages.batch_answer = {
        "results": [
            {
                "status": 202,
                "messageId": "msg_1",
                "correlationId": "c",
                "destinations": [],
                "publishedAt": "t",
            },
            {"status": 422, "error": {"code": "unroutable", "message": "no such event type", "details": []}},
        ],
        "failedCount": 1,
    }

    # When
    code = run(["publish", "room_1", "--batch", '[{"eventType": "a"}, {"eventType": "b"}]'])

    # Then
    assert code == 1
    out = capsys.readouterr().out
    assert "unroutable: no such event type" in out
    assert "1 refused of 2" in out


def test_a_batch_must_be_a_list_of_objects(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["publish", "room_1", "--batch", '{"eventType": "a"}']) == 2
    assert "must be a list of message objects" in capsys.readouterr().err


def test_waiting_for_deliveries_that_do_not_end_exits_5(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a delivery that stays retrying
    fake.messages.status = {"messageId": "msg_1", "deliveries": [{"status": "retrying"}]}

    # When
    code = run(["messages", "show", "room_1", "msg_1", "--wait", "--timeout", "0"])

    # Then
    assert code == 5
    assert "had not ended after 0 s: retrying 1" in capsys.readouterr().err


def test_a_publish_can_wait_and_a_scheduled_message_can_be_cancelled(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.messages.status = {"messageId": "msg_1", "deliverAt": "2026-12-01T09:00:00.000Z", "deliveries": [{}]}

    assert run(["publish", "room_1", "7", "-t", "invoice.reminder", "--deliver-in", "15m"]) == 0
    assert (
        run(["publish", "room_1", "7", "-t", "invoice.reminder", "--deliver-at", "2026-12-01T09:00:00Z"]) == 0
    )
    assert run(["messages", "cancel", "room_1", "msg_1"]) == 0

    assert [p.get("deliver_after_ms") for p in fake.messages.published] == [900_000, None]
    assert fake.messages.published[1]["deliver_at"] == "2026-12-01T09:00:00Z"
    assert fake.messages.cancelled == ["msg_1"]
    assert "cancelled msg_1" in capsys.readouterr().out


def test_a_scheduled_publish_and_the_scheduled_list_say_when_each_is_due(
    fake: FakeClient, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: the API answers a publish with its deliverAt, and lists what waits (on a terminal wide
    # enough for the table: a narrow one, as a test worker's may be, folds its cells)
    monkeypatch.setenv("COLUMNS", "160")
    fake.messages.listed = [{"messageId": "msg_1", "eventType": "invoice.reminder", "eventVersion": "1",
                             "publishedAt": "t", "deliverAt": "2026-12-01T09:00:00.000Z",
                             "correlationId": "c", "deliveries": []}]  # fmt: skip

    # When
    assert run(["publish", "room_1", "7", "-t", "invoice.reminder", "--deliver-in", "15m"]) == 0
    published = capsys.readouterr().out
    assert run(["messages", "list", "room_1", "--scheduled"]) == 0
    listed = capsys.readouterr().out

    # Then
    assert published.startswith("scheduled msg_1 for 0 destination(s), due 2026-12-01 09:00:00.000 UTC")
    assert "delivered" not in published
    assert fake.messages.list_filters[0]["scheduled"] is True
    assert listed.splitlines()[0].split()[3] == "DUE"
    assert "2026-12-01 09:00:00.000" in listed


def test_an_empty_pull_reads_the_subscription_once_to_say_why(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given an ordered PULL subscription whose only key waits behind a message handed out
    fake.subscriptions.subscription = {"id": "sub_1", "roomId": "room_1", "type": "PULL", "ordered": True}

    # When it is pulled (people, then a script)
    assert run(["pull", "room_1", "sub_1"]) == 0
    said = capsys.readouterr().out
    assert run(["pull", "room_1", "sub_1", "--json"]) == 0
    printed = capsys.readouterr().out

    # Then people are told why, after one read of the subscription; the script gets the API's answer
    assert said.startswith("no messages (this subscription is ordered")
    assert fake.subscriptions.reads == [("room_1", "sub_1")]
    assert json.loads(printed) == {"messages": []}


def test_a_pull_that_got_messages_reads_nothing_more(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given
    fake.pulled = [{"messageId": "msg_1", "eventType": "order.paid", "eventVersion": "1", "attempt": 0,
                    "publishedAt": "t", "payload": {}, "receipt": "rcpt_1"}]  # fmt: skip

    # When
    assert run(["pull", "room_1", "sub_1"]) == 0

    # Then
    assert "rcpt_1" in capsys.readouterr().out
    assert fake.subscriptions.reads == []


def test_a_wait_and_a_time_together_or_a_malformed_wait_are_refused_before_any_request(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    both = ["--deliver-in", "15m", "--deliver-at", "2026-12-01T09:00:00Z"]
    assert run(["publish", "room_1", "7", "-t", "a", *both]) == 2
    assert run(["publish", "room_1", "7", "-t", "a", "--deliver-in", "soon"]) == 2
    assert fake.messages.published == []
    assert "--deliver-in takes a wait" in capsys.readouterr().err


def test_metrics_read_the_tenants_a_rooms_or_a_subscriptions_for_the_window_given(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # When
    assert run(["metrics", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    window = ["--since", "2026-11-22T11:00:00+01:00", "--until", "2026-11-22T11:00:00Z"]
    assert run(["metrics", "room_1", *window, "--resolution", "1h"]) == 0
    assert run(["metrics", "room_1", "sub_1", "--since", "15m"]) == 0

    # Then: the API's answer as it is; times in UTC with Z, a time ago counted back from now
    assert printed == METRICS
    tenant, room, subscription = fake.metrics.calls
    assert tenant == ("tenant", {"from_": None, "to": None, "resolution": "1m"})
    assert room == (
        "room",
        "room_1",
        {"from_": "2026-11-22T10:00:00.000Z", "to": "2026-11-22T11:00:00.000Z", "resolution": "1h"},
    )
    assert subscription[:3] == ("subscription", "room_1", "sub_1")
    since = datetime.fromisoformat(subscription[3]["from_"])
    assert timedelta(minutes=14) < datetime.now(UTC) - since < timedelta(minutes=16)
    assert subscription[3]["to"] is None


def test_a_metrics_window_that_ends_before_it_starts_or_an_unknown_resolution_is_refused_first(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["metrics", "--since", "2026-11-22T11:00:00Z", "--until", "2026-11-22T10:00:00Z"]) == 2
    assert "--since must be before --until" in capsys.readouterr().err
    assert run(["metrics", "--since", "2099-01-01T00:00:00Z"]) == 2
    assert run(["metrics", "room_1", "--resolution", "5m"]) == 2
    assert run(["metrics", "--since", "yesterday"]) == 2
    assert fake.metrics.calls == []


def test_alerts_alone_prints_the_firing_and_the_recent_and_json_the_apis_answer(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # When
    assert run(["alerts"]) == 0
    said = capsys.readouterr().out
    assert run(["alerts", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert run(["alerts", "--json", "rules"]) == 0  # before the command, for it (as the root's)
    listed = json.loads(capsys.readouterr().out)

    # Then
    assert "success rate < 90.0% over 5 min (at least 10 attempts)" in said
    assert "75.0%" in said
    assert printed == ALERTS
    assert listed == {"alertRules": [RULE]}
    assert fake.alerts.calls == [("list",), ("list",), ("list_rules",)]


@pytest.mark.parametrize(
    ("options", "condition", "scope", "notify"),
    [
        (
            ["--success-rate-below", "0.9", "--window", "5", "--min-deliveries", "10", "--room", "room_1",
             "--subscription", "sub_1", "--webhook", "https://ops.example.com/alerts"],
            {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 10},
            {"room_id": "room_1", "subscription_id": "sub_1"},
            {"webhookUrl": "https://ops.example.com/alerts"},
        ),
        (
            ["--p95-latency-above", "2000", "--room", "room_1", "--slack", "https://hooks.example.com/x"],
            {"metric": "p95AttemptLatencyMs", "above": 2000.0},
            {"room_id": "room_1", "subscription_id": None},
            {"slackUrl": "https://hooks.example.com/x"},
        ),
        (
            ["--oldest-backlog-above", "300000", "--email", "ops@example.com"],
            {"metric": "oldestBacklogAgeMs", "above": 300000.0},
            {"room_id": None, "subscription_id": None},
            {"email": "ops@example.com"},
        ),
        (
            ["--state-in", "failing, disabled", "--room", "room_1", "--subscription", "sub_1",
             "--email", "o@e.co"],
            {"metric": "subscriptionState", "in": ["failing", "disabled"]},
            {"room_id": "room_1", "subscription_id": "sub_1"},
            {"email": "o@e.co"},
        ),
    ],
)  # fmt: skip
def test_an_alert_rule_is_created_from_its_options_and_its_secret_shown_once(
    fake: FakeClient,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    condition: dict[str, Any],
    scope: dict[str, Any],
    notify: dict[str, Any],
) -> None:
    # When
    assert run(["alerts", "create", "--name", "orders failing", *options]) == 0

    # Then
    assert fake.alerts.calls == [("create_rule", "orders failing", condition, notify, scope)]
    out = capsys.readouterr().out
    assert out.count("whsec_alert") == 1
    assert "shown once" in out


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--webhook", "https://h.example/x"], "Give one condition"),
        (["--success-rate-below", "0.9", "--p95-latency-above", "100", "--webhook", "https://h.example/x"],
         "Give one condition"),
        (["--success-rate-below", "0.9"], "Give where to notify"),
        (["--success-rate-below", "0.9", "--email", "a@b.co", "--slack", "https://h.example/x"],
         "Give where to notify"),
        (["--oldest-backlog-above", "1", "--window", "5", "--email", "a@b.co"], "--window goes with"),
        (["--p95-latency-above", "1", "--min-deliveries", "5", "--email", "a@b.co"],
         "--min-deliveries goes with"),
        (["--state-in", "failing", "--room", "room_1", "--email", "a@b.co"],
         "--state-in watches one subscription"),
        (["--state-in", "broken", "--room", "r", "--subscription", "s", "--email", "a@b.co"],
         "--state-in takes"),
        (["--success-rate-below", "0.9", "--subscription", "sub_1", "--email", "a@b.co"],
         "needs the --room"),
    ],
)  # fmt: skip
def test_an_alert_rule_that_cannot_be_is_refused_before_any_request(
    fake: FakeClient, capsys: pytest.CaptureFixture[str], options: list[str], error: str
) -> None:
    assert run(["alerts", "create", "--name", "n", *options]) == 2
    assert error in capsys.readouterr().err
    assert fake.alerts.calls == []


def test_a_rule_is_snoozed_for_a_while_or_until_a_time_unsnoozed_and_deleted(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # When
    assert run(["alerts", "snooze", "alr_1", "--for", "2h"]) == 0
    assert run(["alerts", "snooze", "alr_1", "--until", "2099-01-01T13:00:00+01:00"]) == 0
    said = capsys.readouterr().out
    assert run(["alerts", "unsnooze", "alr_1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == RULE
    assert run(["alerts", "delete", "alr_1", "--yes"]) == 0

    # Then: the end in UTC with Z, a wait counted from now
    (_, rule, for_two_hours), until, unsnooze, delete = fake.alerts.calls
    assert rule == "alr_1"
    end = datetime.fromisoformat(for_two_hours)
    assert timedelta(minutes=119) < end - datetime.now(UTC) <= timedelta(hours=2)
    assert until == ("snooze", "alr_1", "2099-01-01T12:00:00.000Z")
    assert "alr_1 (orders failing) is snoozed until 2099-01-01 12:00:00.000 UTC" in said
    assert (unsnooze, delete) == (("unsnooze", "alr_1"), ("delete_rule", "alr_1"))
    assert "deleted alert rule alr_1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ([], "Give how long to snooze"),
        (["--for", "2h", "--until", "2099-01-01T00:00:00Z"], "Give how long to snooze"),
        (["--for", "soon"], "--for takes a wait"),
        (["--until", "2020-01-01T00:00:00Z"], "is not in the future"),
    ],
)
def test_a_snooze_without_a_future_end_is_refused_before_any_request(
    fake: FakeClient, capsys: pytest.CaptureFixture[str], options: list[str], error: str
) -> None:
    assert run(["alerts", "snooze", "alr_1", *options]) == 2
    assert error in capsys.readouterr().err
    assert fake.alerts.calls == []
