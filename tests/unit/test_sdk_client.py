"""The SDK's clients over ``httpx.MockTransport``: what each operation sends, how pages are
followed, how publish keys survive retries, and how answers become models; and where a client
finds the API with nothing given (the environment, else a running local stack, as the CLI)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
import standardwebhooks

from roomcast_client import (
    AlertsResponse,
    AsyncClient,
    Client,
    ConfigurationError,
    MetricsResolution,
    MetricsResponse,
    ResponseError,
    RetryPolicy,
    Room,
    WebhookVerificationError,
    verify_webhook,
)

NO_WAIT = RetryPolicy(max_retries=3, base_delay_s=0.0)
ROOM: dict[str, Any] = {
    "id": "room_1",
    "name": "orders",
    "messageExpirationMs": None,
    "deliveryDelayMs": 1000,
    "deliveryDelayMultiplier": 2.0,
    "deliveryAttempts": 5,
    "eventTypes": [],
    "operationsRoomId": None,
    "undeclaredEventTypes": "allow",
    "createdAt": "2026-11-22T08:23:17.758Z",
    "updatedAt": "2026-11-22T08:23:17.758Z",
}
PUBLISHED = {
    "messageId": "msg_1",
    "correlationId": "c",
    "destinations": [],
    "publishedAt": "2026-11-22T08:23:18.831Z",
}


def client_answering(
    handler: Callable[[httpx.Request], httpx.Response],
) -> tuple[Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    http = httpx.Client(transport=httpx.MockTransport(record))
    return Client("https://api.example/prod", "rc_key", retry=NO_WAIT, http=http), seen


def test_requests_carry_the_key_the_base_path_and_camel_case_fields() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(201, json=ROOM))

    # When
    client.rooms.create(name="orders", delivery_attempts=5, eventTypes=[{"name": "order.created"}])

    # Then
    (request,) = seen
    assert str(request.url) == "https://api.example/prod/rooms"
    assert request.headers["authorization"] == "Bearer rc_key"
    assert json.loads(request.content) == {
        "name": "orders",
        "deliveryAttempts": 5,
        "eventTypes": [{"name": "order.created"}],
    }


def test_a_scheduled_publish_sends_its_time_with_an_offset_and_can_be_listed_and_cancelled() -> None:
    # Given
    scheduled = {**PUBLISHED, "deliverAt": "2026-12-01T09:00:00.000Z"}
    status = {**scheduled, "roomId": "room_1", "eventType": "e", "eventVersion": "1", "cancelledAt": "t"}
    answers = iter([scheduled, scheduled, {"messages": [status], "nextCursor": None}, status])
    client, seen = client_answering(lambda request: httpx.Response(200, json=next(answers)))

    # When
    published = client.messages.publish("room_1", 7, event_type="e", deliver_at=datetime(2026, 12, 1, 9, 0))
    client.messages.publish("room_1", 7, event_type="e", deliver_after_ms=60_000)
    listed = client.messages.list("room_1", scheduled=True)
    cancelled = client.messages.cancel("room_1", "msg_1")

    # Then
    assert json.loads(seen[0].content)["deliverAt"] == "2026-12-01T09:00:00+00:00"
    assert json.loads(seen[1].content)["deliverAfterMs"] == 60_000
    assert published.deliver_at == "2026-12-01T09:00:00.000Z"
    assert seen[2].url.params["status"] == "scheduled"
    assert [m.message_id for m in listed.items] == ["msg_1"]
    assert (seen[3].method, seen[3].url.path) == ("DELETE", "/prod/rooms/room_1/messages/msg_1")
    assert cancelled.cancelled_at == "t"


def test_path_parameters_are_escaped() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(200, json=ROOM))

    # When
    client.rooms.get("../api-keys?x=1")

    # Then
    assert seen[0].url.raw_path == b"/prod/rooms/..%2Fapi-keys%3Fx%3D1"


def test_iter_follows_next_cursor_to_the_last_page() -> None:
    # Given three pages
    pages = {None: (["a", "b"], "c1"), "c1": (["c", "d"], "c2"), "c2": (["e"], None)}

    def answer(request: httpx.Request) -> httpx.Response:
        names, cursor = pages[request.url.params.get("cursor")]
        return httpx.Response(200, json={"rooms": [{**ROOM, "id": n} for n in names], "nextCursor": cursor})

    client, seen = client_answering(answer)

    # When
    ids = [room.id for room in client.rooms.iter(limit=2)]

    # Then
    assert ids == ["a", "b", "c", "d", "e"]
    assert [r.url.params.get("cursor") for r in seen] == [None, "c1", "c2"]
    assert {r.url.params["limit"] for r in seen} == {"2"}


def test_a_retried_publish_sends_the_same_generated_key_and_each_publish_its_own() -> None:
    # Given an API that fails each publish once
    answers = iter([503, 202, 503, 202])
    client, seen = client_answering(lambda request: httpx.Response(next(answers), json=PUBLISHED))

    # When
    client.messages.publish("room_1", {"n": 1}, event_type="order.created")
    client.messages.publish("room_1", {"n": 2}, event_type="order.created")

    # Then
    keys = [request.headers["idempotency-key"] for request in seen]
    assert keys[0] == keys[1]
    assert keys[2] == keys[3]
    assert keys[0] != keys[2]
    assert json.loads(seen[0].content) == {
        "eventType": "order.created",
        "eventVersion": "1",
        "payload": {"n": 1},
    }


def test_a_given_idempotency_key_is_sent_as_is() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(202, json=PUBLISHED))

    # When
    client.messages.publish(
        "room_1",
        {"eventType": "order.created", "eventVersion": "2", "payload": {}},
        idempotency_key="order-1001",
        correlation_id="c-1",
    )

    # Then
    assert seen[0].headers["idempotency-key"] == "order-1001"
    assert json.loads(seen[0].content)["correlationId"] == "c-1"


def test_batch_messages_without_a_key_get_one_and_keep_a_given_one() -> None:
    # Given
    client, seen = client_answering(
        lambda request: httpx.Response(200, json={"results": [], "failedCount": 0})
    )

    # When
    client.messages.publish_batch(
        "room_1",
        [{"eventType": "a", "payload": 1, "idempotencyKey": "mine"}, {"event_type": "a", "payload": 2}],
    )

    # Then
    first, second = json.loads(seen[0].content)["messages"]
    assert first["idempotencyKey"] == "mine"
    assert second["idempotencyKey"].startswith("sdk-")
    assert second["eventType"] == "a"


def test_a_create_is_not_repeated_after_a_503() -> None:
    # Given
    client, seen = client_answering(
        lambda request: httpx.Response(503, json={"message": "Service Unavailable"})
    )

    # When / Then
    with pytest.raises(Exception, match="503"):
        client.rooms.create(name="orders")
    assert len(seen) == 1


def test_pull_sends_wait_in_whole_seconds() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(200, json={"messages": []}))

    # When
    client.pull("room_1", "sub_1", max_messages=3, wait_ms=1500)

    # Then
    assert json.loads(seen[0].content) == {"maxMessages": 3, "waitSeconds": 2}


def test_pull_and_ack_sends_the_receipts_as_ack_and_reads_what_the_ack_did() -> None:
    # Given
    failure = {"receipt": "rcpt_2", "messageId": "msg_2", "error": "ReceiptHandleIsInvalid"}
    answer = {"messages": [], "acked": ["msg_1"], "ackFailed": [failure]}
    client, seen = client_answering(lambda request: httpx.Response(200, json=answer))

    # When
    result = client.pull_and_ack("room_1", "sub_1", ["rcpt_1", "rcpt_2"], max_messages=5, wait_ms=1)

    # Then
    assert seen[0].url.path.endswith("/rooms/room_1/subscriptions/sub_1/pull")
    assert json.loads(seen[0].content) == {"maxMessages": 5, "waitSeconds": 1, "ack": ["rcpt_1", "rcpt_2"]}
    assert (result.messages, result.acked) == ([], ["msg_1"])
    assert [(f.message_id, f.error) for f in result.ack_failed] == [("msg_2", "ReceiptHandleIsInvalid")]


@pytest.mark.parametrize("body", [{"unexpected": True}, [1, 2], "text", None])
def test_a_2xx_that_is_not_the_documented_answer_is_a_response_error(body: Any) -> None:
    # Given
    client, _ = client_answering(lambda request: httpx.Response(200, json=body))

    # When / Then
    with pytest.raises(ResponseError):
        client.rooms.get("room_1")
    with pytest.raises(ResponseError):
        client.rooms.list()


def test_models_keep_unknown_fields_and_dump_back_to_the_apis_json() -> None:
    # Given an answer from a newer API
    answer = {**ROOM, "colour": "blue"}

    # When
    room = Room.model_validate(answer)

    # Then
    assert room.delivery_delay_ms == 1000
    assert room.model_dump(mode="json", by_alias=True) == answer
    by_name = Room(
        id="r",
        name="n",
        delivery_delay_ms=5,
        delivery_delay_multiplier=2.0,
        delivery_attempts=1,
        created_at="t",
        updated_at="t",
    )
    assert by_name.model_dump(by_alias=True)["deliveryDelayMs"] == 5


def test_the_environment_gives_the_url_and_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Given (and no local stack to fall back to)
    monkeypatch.setenv("ROOMCAST_URL", "https://env.example")
    monkeypatch.setenv("ROOMCAST_API_KEY", "rc_env")
    monkeypatch.setenv("ROOMCAST_STATE_FILE", str(tmp_path / "no-stack.json"))

    # When
    client = Client()

    # Then
    assert (client.config.base_url, client.config.api_key) == ("https://env.example/", "rc_env")
    monkeypatch.delenv("ROOMCAST_API_KEY")
    with pytest.raises(ConfigurationError, match="ROOMCAST_API_KEY"):
        Client()


def _local_stack(project: Path, pid: int) -> Path:
    """A project folder's state file as the local stack writes it (tools/roomcast_dev/stack_state.py)."""
    path = project / ".local" / "stack.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"apiUrl": "http://127.0.0.1:3999", "pid": pid, "apiKey": "rc_local"}))
    path.chmod(0o600)
    return path


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ROOMCAST_URL", "ROOMCAST_API_KEY", "ROOMCAST_STATE_FILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("unconfigured")
def test_with_nothing_given_the_clients_find_the_running_local_stack_as_the_cli_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Given a running local stack's state file at the project's root, and a script in a subfolder
    _local_stack(tmp_path, os.getpid())
    subfolder = tmp_path / "scripts"
    subfolder.mkdir()
    monkeypatch.chdir(subfolder)

    # When
    client, async_client = Client(), AsyncClient()

    # Then both use the stack's URL and the local tenant's key
    for config in (client.config, async_client.config):
        assert (config.base_url, config.api_key) == ("http://127.0.0.1:3999/", "rc_local")
    # and what is given, or in the environment, still comes first
    monkeypatch.setenv("ROOMCAST_API_KEY", "rc_env")
    assert (Client().config.api_key, Client("https://api.example", "rc_given").config.api_key) == (
        "rc_env",
        "rc_given",
    )
    assert Client().config.base_url == "http://127.0.0.1:3999/"


@pytest.mark.usefixtures("unconfigured")
def test_a_stopped_local_stack_is_not_used_and_the_error_says_every_way_to_configure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Given a state file whose stack's process is gone
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    _local_stack(tmp_path, process.pid)
    monkeypatch.chdir(tmp_path)

    # When
    with pytest.raises(ConfigurationError) as raised:
        Client()

    # Then
    message = str(raised.value)
    for hint in ("base_url=", "ROOMCAST_URL", "make run", "ROOMCAST_STATE_FILE"):
        assert hint in message


def test_the_async_client_runs_the_same_operations() -> None:
    # Given
    answers = iter([httpx.Response(502), httpx.Response(200, json={"rooms": [ROOM], "nextCursor": None})])
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda request: next(answers)))

    async def list_rooms() -> list[str]:
        async with AsyncClient("https://api.example", "rc_key", retry=NO_WAIT, http=http) as client:
            return [room.id async for room in client.rooms.iter()]

    # When / Then: the 502 was retried
    assert asyncio.run(list_rooms()) == ["room_1"]


def test_each_client_takes_only_its_own_kind_of_httpx_client() -> None:
    with pytest.raises(TypeError, match=r"^Client takes an httpx\.Client$"):
        Client("https://api.example", "rc_key", http=httpx.AsyncClient())
    with pytest.raises(TypeError, match=r"^AsyncClient takes an httpx\.AsyncClient$"):
        AsyncClient("https://api.example", "rc_key", http=httpx.Client())


def test_a_client_closes_the_http_client_it_made_and_leaves_a_given_one_open() -> None:
    # Given
    given = httpx.Client()
    with Client("https://api.example", "rc_key") as own, Client("https://api.example", "rc_key", http=given):
        made = own._executor.http

    # Then
    assert made.is_closed
    assert not given.is_closed
    given.close()


METRICS_POINT: dict[str, Any] = {
    "at": "2026-11-22T10:05:00.000Z",
    "attempts": 25,
    "delivered": 20,
    "failedAttempts": 5,
    "dead": 0,
    "expired": 0,
    "aborted": 0,
    "cleared": 0,
    "cancelled": 0,
    "failedOver": 0,
    "filteredOut": 2,
    "successRate": 0.8,
    "attemptLatencyMs": {"p50": 42.3, "p95": 180.2, "p99": 950.7},
    "deliveryDelayMs": None,
    "backlog": 3,
    "oldestOpenAgeMs": 12400,
}
METRICS: dict[str, Any] = {
    "resolution": "1m",
    "start": "2026-11-22T10:05:00.000Z",
    "end": "2026-11-22T10:06:00.000Z",
    "points": [METRICS_POINT],
    "summary": {
        key: value for key, value in METRICS_POINT.items() if key not in ("at", "backlog", "oldestOpenAgeMs")
    },
    "backlog": {"open": 3, "oldestOpenAgeMs": 12400},
}


def test_metrics_of_a_subscription_a_room_and_the_tenant_read_their_paths_with_the_window() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(200, json=METRICS))
    tokyo = timezone(timedelta(hours=9))

    # When
    client.metrics.subscription("room_1", "sub_1")
    client.metrics.room("room/1", from_=datetime(2026, 11, 22, 19, 0, tzinfo=tokyo), resolution="1h")
    client.metrics.tenant(from_=datetime(2026, 11, 22, 10, 0, 0, 250_000), to="2026-11-22T11:00:00+01:00")

    # Then: only what was given is sent, datetimes in UTC with Z, text as it is
    assert [(r.method, r.url.raw_path.split(b"?")[0]) for r in seen] == [
        ("GET", b"/prod/rooms/room_1/subscriptions/sub_1/metrics"),
        ("GET", b"/prod/rooms/room%2F1/metrics"),
        ("GET", b"/prod/metrics"),
    ]
    assert [dict(r.url.params) for r in seen] == [
        {"resolution": "1m"},
        {"from": "2026-11-22T10:00:00Z", "resolution": "1h"},
        {"from": "2026-11-22T10:00:00.250000Z", "to": "2026-11-22T11:00:00+01:00", "resolution": "1m"},
    ]


def test_a_metrics_answer_is_read_into_its_model() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(200, json=METRICS))

    # When
    metrics = client.metrics.room("room_1", resolution=MetricsResolution.V_1H)

    # Then
    assert seen[0].url.params["resolution"] == "1h"
    assert isinstance(metrics, MetricsResponse)
    (point,) = metrics.points
    assert (point.at, point.delivered, point.failed_attempts, point.success_rate) == (
        "2026-11-22T10:05:00.000Z",
        20,
        5,
        0.8,
    )
    assert point.attempt_latency_ms is not None
    assert point.attempt_latency_ms.p99 == 950.7
    assert point.delivery_delay_ms is None
    assert (metrics.summary.attempts, metrics.backlog.open, metrics.backlog.oldest_open_age_ms) == (
        25,
        3,
        12400,
    )
    assert metrics.model_dump(mode="json", by_alias=True) == METRICS


def test_the_async_client_reads_metrics_too() -> None:
    # Given
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=METRICS)

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))

    async def read() -> MetricsResponse:
        async with AsyncClient("https://api.example", "rc_key", retry=NO_WAIT, http=http) as client:
            return await client.metrics.subscription("room_1", "sub_1", to=datetime(2026, 11, 22, 11, 0))

    # When
    metrics = asyncio.run(read())

    # Then
    assert metrics.summary.delivered == 20
    assert seen[0].url.path == "/rooms/room_1/subscriptions/sub_1/metrics"
    assert dict(seen[0].url.params) == {"to": "2026-11-22T11:00:00Z", "resolution": "1m"}


# -- alerts -------------------------------------------------------------------------------------

RULE: dict[str, Any] = {
    "id": "alr_1",
    "name": "orders endpoint failing",
    "scope": {"roomId": "room_1", "subscriptionId": "sub_1"},
    "condition": {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 10},
    "notify": {"webhookUrl": "https://ops.example.com/roomcast-alerts"},
    "state": "firing",
    "value": 0.75,
    "changedAt": "2026-11-22T10:05:00.000Z",
    "snoozedUntil": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
}
ALERTS: dict[str, Any] = {
    "firing": [RULE],
    "recent": [
        {"ruleId": "alr_1", "name": "orders endpoint failing", "state": "firing", "value": 0.75,
         "at": "2026-11-22T10:05:00.000Z"},
        {"ruleId": "alr_2", "name": "backlog", "state": "resolved", "value": None,
         "at": "2026-11-22T09:00:00.000Z"},
    ],
}  # fmt: skip


def test_an_alert_rule_is_created_with_its_scope_and_read_with_its_secret() -> None:
    # Given
    client, seen = client_answering(
        lambda request: httpx.Response(201, json={**RULE, "signingSecret": "whsec_x"})
    )

    # When: snake_case names inside the condition and the target are the API's too
    created = client.alerts.create_rule(
        "orders endpoint failing",
        {"metric": "successRate", "below": 0.9, "window_minutes": 5, "minDeliveries": 10},
        {"webhook_url": "https://ops.example.com/roomcast-alerts"},
        room_id="room_1",
        subscription_id="sub_1",
    )
    client.alerts.create_rule(
        "backlog", {"metric": "oldestBacklogAgeMs", "above": 300_000}, {"email": "a@b.co"}
    )

    # Then
    assert [(r.method, r.url.path) for r in seen] == [("POST", "/prod/alert-rules")] * 2
    assert json.loads(seen[0].content) == {
        "name": "orders endpoint failing",
        "condition": RULE["condition"],
        "notify": RULE["notify"],
        "scope": RULE["scope"],
    }
    assert "scope" not in json.loads(seen[1].content)  # the tenant's
    assert (created.id, created.signing_secret, created.condition["below"]) == ("alr_1", "whsec_x", 0.9)


def test_alert_rules_are_listed_read_changed_snoozed_and_deleted_on_their_paths() -> None:
    # Given
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(
            200, json={"alertRules": [RULE]} if request.url.path.endswith("rules") else RULE
        )

    client, seen = client_answering(answer)

    # When
    listed = client.alerts.list_rules()
    rule = client.alerts.get_rule("alr/1")
    client.alerts.update_rule(
        "alr_1", name="renamed", condition={"metric": "subscriptionState", "in": ["failing"]}
    )
    client.alerts.update_rule(
        "alr_1", snoozed_until=datetime(2026, 11, 22, 21, 0, tzinfo=timezone(timedelta(hours=9)))
    )
    client.alerts.update_rule("alr_1", snoozed_until=None)
    client.alerts.snooze("alr_1", "2026-11-22T12:00:00+01:00")
    client.alerts.unsnooze("alr_1")
    deleted = client.alerts.delete_rule("alr_1")

    # Then: only what was given is sent, None lifting the snooze; a datetime in UTC with Z
    assert [(r.method, r.url.raw_path) for r in seen] == [
        ("GET", b"/prod/alert-rules"),
        ("GET", b"/prod/alert-rules/alr%2F1"),
        *[("PATCH", b"/prod/alert-rules/alr_1")] * 5,
        ("DELETE", b"/prod/alert-rules/alr_1"),
    ]
    assert [json.loads(r.content) for r in seen[2:7]] == [
        {"name": "renamed", "condition": {"metric": "subscriptionState", "in": ["failing"]}},
        {"snoozedUntil": "2026-11-22T12:00:00Z"},
        {"snoozedUntil": None},
        {"snoozedUntil": "2026-11-22T12:00:00+01:00"},
        {"snoozedUntil": None},
    ]
    assert [r.id for r in listed.alert_rules] == ["alr_1"]
    assert (rule.state, rule.value, rule.changed_at) == ("firing", 0.75, "2026-11-22T10:05:00.000Z")
    assert deleted is None


def test_the_alerts_firing_and_recent_are_read_into_their_model() -> None:
    # Given
    client, seen = client_answering(lambda request: httpx.Response(200, json=ALERTS))

    # When
    alerts = client.alerts.list()

    # Then
    assert (seen[0].method, seen[0].url.path) == ("GET", "/prod/alerts")
    assert isinstance(alerts, AlertsResponse)
    assert [rule.id for rule in alerts.firing] == ["alr_1"]
    assert [(event.rule_id, event.state, event.value) for event in alerts.recent] == [
        ("alr_1", "firing", 0.75),
        ("alr_2", "resolved", None),
    ]
    assert alerts.model_dump(mode="json", by_alias=True) == ALERTS


def test_the_async_client_reads_alerts_too() -> None:
    # Given
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda request: httpx.Response(200, json=ALERTS)))

    async def read() -> AlertsResponse:
        async with AsyncClient("https://api.example", "rc_key", retry=NO_WAIT, http=http) as client:
            return await client.alerts.list()

    # When / Then
    assert asyncio.run(read()).recent[1].rule_id == "alr_2"


# -- webhooks -----------------------------------------------------------------------------------

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = json.dumps(
    {
        "messageId": "msg_1",
        "roomId": "room_1",
        "subscriptionId": "sub_1",
        "eventType": "order.created",
        "eventVersion": "1",
        "correlationId": "c",
        "publishedAt": "2026-11-22T08:23:18.831Z",
        "attempt": 0,
        "payload": {"n": 1},
    }
).encode()


def signed_headers(body: bytes, secret: str = SECRET, at: datetime | None = None) -> dict[str, str]:
    timestamp = at or datetime.now(tz=UTC)
    signature = standardwebhooks.Webhook(secret).sign("msg_1", timestamp, body.decode())
    return {
        "Webhook-Id": "msg_1",
        "Webhook-Timestamp": str(int(timestamp.timestamp())),
        "Webhook-Signature": signature,
    }


def test_a_signed_webhook_verifies_into_its_message() -> None:
    # When
    message = verify_webhook(SECRET, signed_headers(BODY), BODY)

    # Then
    assert (message.message_id, message.subscription_id, message.payload) == ("msg_1", "sub_1", {"n": 1})


@pytest.mark.parametrize(
    ("secret", "headers", "body"),
    [
        (SECRET, signed_headers(BODY), BODY.replace(b'"n": 1', b'"n": 2')),
        (SECRET, {**signed_headers(BODY), "Webhook-Signature": "v1,bm90IGl0"}, BODY),
        (SECRET, {**signed_headers(BODY), "Webhook-Signature": "garbage"}, BODY),
        (SECRET, {"Webhook-Id": "msg_1"}, BODY),
        (SECRET, signed_headers(BODY, at=datetime(2020, 1, 1, tzinfo=UTC)), BODY),
        ("whsec_!!!", signed_headers(BODY), BODY),
        ("", signed_headers(BODY), BODY),
        (SECRET, signed_headers(b"[1, 2]"), b"[1, 2]"),
        (SECRET, signed_headers(b"\xff".decode("latin-1").encode()), b"\xff"),
    ],
)
def test_anything_not_verified_is_one_error(secret: str, headers: dict[str, str], body: bytes) -> None:
    # When / Then
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret, headers, body)


def test_a_2xx_that_is_not_json_is_a_response_error() -> None:
    # Given a 2xx that is not JSON
    client, _ = client_answering(lambda request: httpx.Response(200, text="<html>"))

    # When / Then
    with pytest.raises(ResponseError, match="not JSON"):
        client.rooms.get("room_1")


def test_a_receiver_steers_its_delivery_with_the_webhook_delivery_header() -> None:
    from roomcast_client import DeliveryControl, delivery_control_header

    assert delivery_control_header("abort") == {"webhook-delivery": "abort"}
    assert delivery_control_header(DeliveryControl.DISABLE) == {"webhook-delivery": "disable"}
    with pytest.raises(ValueError, match="pause"):
        delivery_control_header("pause")


SESSION_VIEW = {
    "sessionId": "ps_1",
    "consumerId": "acme",
    "rooms": ["room_1"],
    "eventTypes": None,
    "readOnly": False,
    "expiresAt": "2026-11-28T11:00:00.000Z",
}


def test_scoped_keys_portal_sessions_and_their_settings_send_the_apis_names() -> None:
    # Given
    created_key = {
        "keyId": "key_1",
        "name": "",
        "createdAt": "t",
        "scopes": ["publish"],
        "rooms": ["room_1"],
        "key": "rc_x",
    }
    opened = {**SESSION_VIEW, "token": "rcp_x", "url": "https://api.example/prod/portal/ps_1#rcp_x"}
    settings = {
        "title": "Acme",
        "logoUrl": None,
        "accentColor": "#0a7d5a",
        "frameAncestors": ["https://a.example"],
    }
    answers = iter([created_key, opened, settings])
    client, seen = client_answering(
        lambda request: (
            httpx.Response(204) if request.method == "DELETE" else httpx.Response(200, json=next(answers))
        )
    )

    # When
    key = client.api_keys.create("publisher", scopes=["publish"], rooms=["room_1"])
    session = client.portal_sessions.create(
        "acme", ["room_1"], event_types=["order.created"], expires_in_seconds=600
    )
    client.portal_sessions.delete("ps_1")
    saved = client.portal_settings.put(accent_color="#0a7d5a", frame_ancestors=["https://a.example"])

    # Then
    assert json.loads(seen[0].content) == {"name": "publisher", "scopes": ["publish"], "rooms": ["room_1"]}
    assert key.scopes == ["publish"]
    assert json.loads(seen[1].content) == {
        "consumerId": "acme",
        "rooms": ["room_1"],
        "eventTypes": ["order.created"],
        "expiresInSeconds": 600,
    }
    assert session.url.endswith("#rcp_x")
    assert session.session_id == "ps_1"
    assert (seen[2].method, seen[2].url.path) == ("DELETE", "/prod/portal-sessions/ps_1")
    assert (seen[3].method, json.loads(seen[3].content)) == (
        "PUT",
        {"accentColor": "#0a7d5a", "frameAncestors": ["https://a.example"]},
    )
    assert saved.frame_ancestors == ["https://a.example"]


def test_a_test_event_a_revealed_secret_and_a_consumers_subscriptions() -> None:
    # Given
    sent = {
        "messageId": "msg_1",
        "eventType": "roomcast.ping",
        "eventVersion": "1",
        "payload": {"test": True},
    }
    secrets = {"signingSecret": "whsec_a", "secrets": [{"signingSecret": "whsec_a", "validUntil": None}]}
    answers = iter([sent, secrets, {"subscriptions": [], "nextCursor": None}])
    client, seen = client_answering(lambda request: httpx.Response(200, json=next(answers)))

    # When
    tested = client.subscriptions.send_test_event("room_1", "sub_1")
    revealed = client.subscriptions.signing_secret("room_1", "sub_1")
    client.subscriptions.list("room_1", consumer_id="acme")

    # Then
    assert (seen[0].method, seen[0].url.path, json.loads(seen[0].content)) == (
        "POST",
        "/prod/rooms/room_1/subscriptions/sub_1/test-event",
        {},
    )
    assert tested.event_type == "roomcast.ping"
    assert seen[1].url.path == "/prod/rooms/room_1/subscriptions/sub_1/signing-secret"
    assert revealed.signing_secret == "whsec_a"
    assert seen[2].url.params["consumerId"] == "acme"
