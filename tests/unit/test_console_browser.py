"""The console's scripts in headless chromium, on a fake origin where the test answers every request
(no stack): its router and the API paths it builds never turn an id that is not plain into a
request. How the files are served: tests/unit/test_console.py; the browser tests against the stack:
tests/e2e/test_console.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import Browser, Route, expect, sync_playwright

from roomcast_dev.browser import HOW_TO_INSTALL, find_browser
from tests.unit.test_console import get

CHROMIUM = find_browser()  # `make test` found or provided it first (roomcast_dev.browser)

ORIGIN = "http://console.test"
ROOM = {"id": "room_1", "name": "orders", "eventTypes": [], "createdAt": "2026-11-22T10:00:00.000Z"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.fail(HOW_TO_INSTALL, pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        yield launched
        launched.close()


class Tab:
    """The console signed in, on a fake origin: its files from the docs function, each API path
    answered from ``answers`` (else 404), and every API path it asked for recorded."""

    def __init__(self, browser: Browser, answers: dict[str, Any]) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.asked: list[str] = []
        self.answers = answers
        self.page.add_init_script("sessionStorage.setItem('roomcast.apiKey', 'rc_test')")
        self.page.route("**/*", self._answer)

    def _answer(self, route: Route) -> None:
        path = urlsplit(route.request.url).path
        if path == "/console" or path.startswith("/console/"):
            served = get(path)
            route.fulfill(status=served["statusCode"], headers=served["headers"], body=served["body"])
            return
        self.asked.append(path)
        if path in self.answers:
            route.fulfill(status=200, content_type="application/json", body=json.dumps(self.answers[path]))
        else:
            error = {"error": {"code": "not_found", "message": f"no {path}", "details": []}}
            route.fulfill(status=404, content_type="application/json", body=json.dumps(error))


@pytest.fixture
def tab(browser: Browser) -> Iterator[Tab]:
    opened = Tab(browser, {})
    yield opened
    opened.context.close()


@pytest.mark.parametrize(
    "address",
    [
        "#/rooms/..",
        "#/rooms/.",
        "#/rooms/%2E%2E",
        "#/rooms/%2e",
        "#/rooms/room_1%2F..%2F..",
        "#/rooms/room_1/subscriptions/..",
        "#/rooms/room_1/messages/%2E%2E",
        "#/rooms/..%3Flimit=1",
        "#/rooms/%E0%A4%A",
    ],
)
def test_an_address_whose_id_is_not_plain_asks_the_api_nothing(tab: Tab, address: str) -> None:
    # When
    tab.page.goto(f"{ORIGIN}/console{address}")

    # Then
    expect(tab.page.get_by_role("heading", name="Not a roomcast id")).to_be_visible()
    assert tab.asked == []


def test_an_address_with_plain_ids_asks_for_them(tab: Tab) -> None:
    # Given
    tab.answers["/rooms/room_1"] = ROOM

    # When
    tab.page.goto(f"{ORIGIN}/console#/rooms/room_1")

    # Then: the room's reads, each on its own path
    expect(tab.page.get_by_role("heading", name="This page could not be loaded")).to_be_visible()
    assert "/rooms/room_1" in tab.asked
    assert all(path.startswith("/rooms/room_1") for path in tab.asked), tab.asked


def test_an_id_from_the_api_that_is_a_dot_segment_is_never_put_in_a_path(tab: Tab) -> None:
    # Given: a subscription whose newest failed delivery names the message ".." (its attempts
    # would be read from rooms/room_1/messages/../attempts, i.e. /rooms/room_1/attempts)
    subscription = "/rooms/room_1/subscriptions/sub_1"
    tab.answers.update(
        {
            "/rooms/room_1": ROOM,
            subscription: {"id": "sub_1", "type": "PUSH", "status": "active", "eventTypes": []},
            f"{subscription}/schedule": {"attempts": [], "note": ""},
            f"{subscription}/transformation": {"current": None, "previous": None},
            f"{subscription}/deliveries": {
                "deliveries": [
                    {"messageId": "..", "status": "dead", "attempts": 2, "updatedAt": "2026-11-22T10:00:00Z"}
                ],
                "nextCursor": None,
            },
            f"{subscription}/dead-letters": {"deadLetters": [], "nextCursor": None},
        }
    )

    # When
    tab.page.goto(f"{ORIGIN}/console#/rooms/room_1/subscriptions/sub_1")

    # Then: refused in the page, and only the paths it meant were asked for
    expect(tab.page.get_by_role("alert")).to_contain_text('".." cannot be part of an API path')
    assert set(tab.asked) <= set(tab.answers), tab.asked


@pytest.mark.parametrize("name", ["order-7", "order:1001"])  # reserved characters go percent-encoded
def test_an_ordered_subscriptions_paused_keys_show_their_dead_message_and_reason_and_resume(
    tab: Tab, name: str
) -> None:
    # Given: an ordered subscription with one paused key
    subscription = "/rooms/room_1/subscriptions/sub_1"
    key = {
        "orderingKey": name,
        "status": "paused",
        "deadMessageId": "msg_dead",
        "reason": "HTTP 500 after 3 attempts",
        "pausedAt": "2026-11-22T10:05:00.000Z",
        "inFlight": None,
    }
    tab.answers.update(
        {
            "/rooms/room_1": ROOM,
            subscription: {
                "id": "sub_1",
                "type": "PUSH",
                "status": "active",
                "eventTypes": [],
                "pushUrl": "https://hooks.example.com/x",
                "ordered": True,
                "onDeadKey": "pause",
            },
            f"{subscription}/schedule": {"attempts": [], "note": ""},
            f"{subscription}/transformation": {"current": None, "previous": None},
            f"{subscription}/deliveries": {"deliveries": [], "nextCursor": None},
            f"{subscription}/dead-letters": {"deadLetters": [], "nextCursor": None},
            f"{subscription}/ordering-keys": {"orderingKeys": [key]},
            f"{subscription}/ordering-keys/{quote(name, safe='')}/resume": {
                **key,
                "status": "flowing",
                "inFlight": "msg_next",
            },
        }
    )

    # When
    tab.page.goto(f"{ORIGIN}/console#/rooms/room_1/subscriptions/sub_1")

    # Then: the screen says it is ordered, and lists the paused key with its dead message and why
    expect(tab.page.get_by_text("ordered: a key's messages one at a time")).to_be_visible()
    keys = tab.page.get_by_role("table", name="Paused ordering keys, longest paused first")
    expect(keys).to_contain_text(name)
    expect(keys).to_contain_text("msg_dead")
    expect(keys).to_contain_text("HTTP 500 after 3 attempts")
    # and skipping its dead message asks the API to resume it
    tab.page.get_by_role("button", name=f"Skip and resume {name}").click()
    expect(tab.page.get_by_role("status")).to_contain_text(
        f"Ordering key {name} resumed, its dead message skipped"
    )
    assert f"{subscription}/ordering-keys/{quote(name, safe='')}/resume" in tab.asked


def metrics_answer(
    attempts: int = 0, failed: int = 0, open_now: int = 0, oldest_ms: int | None = None, points: int = 60
) -> dict[str, Any]:
    """A metrics answer (MetricsResponse) of `points` minutes, the attempts in the last one."""
    start = 1_795_000_000_000 - 1_795_000_000_000 % 60_000
    rate = None if attempts == 0 else round(1 - failed / attempts, 4)
    counts: dict[str, Any] = {
        "attempts": 0, "delivered": 0, "failedAttempts": 0, "dead": 0, "expired": 0, "aborted": 0,
        "cleared": 0, "cancelled": 0, "failedOver": 0, "filteredOut": 0, "successRate": None,
    }  # fmt: skip
    latency = {"p50": 40.0, "p95": 180.0, "p99": 900.0}
    series = []
    for n in range(points):
        point: dict[str, Any] = {
            **counts,
            "at": _iso(start + n * 60_000),
            "attemptLatencyMs": None,
            "deliveryDelayMs": None,
            "backlog": open_now,
            "oldestOpenAgeMs": oldest_ms,
        }
        if n % 7 == 3 or n == points - 1:  # some minutes with traffic, the newest included
            point.update(
                attempts=attempts, failedAttempts=failed, delivered=attempts - failed, dead=min(failed, 1),
                successRate=rate, attemptLatencyMs=latency if attempts else None,
                deliveryDelayMs=latency if attempts else None,
            )  # fmt: skip
        series.append(point)
    summary = {
        **counts,
        "attempts": attempts,
        "failedAttempts": failed,
        "delivered": attempts - failed,
        "successRate": rate,
        "attemptLatencyMs": latency if attempts else None,
        "deliveryDelayMs": None,
    }
    return {
        "resolution": "1m",
        "start": series[0]["at"],
        "end": _iso(start + points * 60_000),
        "points": series,
        "summary": summary,
        "backlog": {"open": open_now, "oldestOpenAgeMs": oldest_ms},
    }


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _module(tab: Tab, module: str, expression: str, argument: Any = None) -> Any:
    """`expression` evaluated with the console's module as `m` (and `arg`), in a page of the console."""
    if not tab.page.url.startswith(ORIGIN):
        tab.page.goto(f"{ORIGIN}/console#/event-types")
    return tab.page.evaluate(
        f"async (arg) => {{ const m = await import('/console/{module}'); return {expression}; }}", argument
    )


def test_each_charts_range_asks_for_a_window_one_answer_holds(tab: Tab) -> None:
    # Given: a time in the middle of a minute, and the API's own count of a window's buckets
    now = 1_795_000_000_000 + 37_123
    step = {"1m": 60_000, "1h": 3_600_000}
    most = {"1m": 1440, "1h": 840}

    # When
    queries = _module(tab, "metrics.js", "Object.keys(m.RANGES).map((r) => [r, m.metricsQuery(r, arg)])", now)

    # Then: each window starts on a bucket, ends now, and holds its range's points, within the API's bound
    expected = {"1h": ("1m", 60), "24h": ("1m", 1440), "7d": ("1h", 168), "30d": ("1h", 720)}
    assert [name for name, _ in queries] == list(expected)
    for name, query in queries:
        resolution, points = expected[name]
        start = int(datetime.fromisoformat(query["from"]).timestamp() * 1000)
        end = int(datetime.fromisoformat(query["to"]).timestamp() * 1000)
        assert (query["resolution"], end) == (resolution, now)
        assert start % step[resolution] == 0
        buckets = -(-(end - start) // step[resolution])  # the API's: (end - start_of(from)) / step, up
        assert buckets == points <= most[resolution], name


@pytest.mark.parametrize(
    ("subscription", "metrics", "why"),
    [
        ({"status": "active"}, None, []),
        (
            {"status": "disabled", "disabledReason": "the endpoint asked"},
            None,
            ["disabled: the endpoint asked"],
        ),
        (
            {"status": "active", "failingSince": "2026-11-22T10:00:00.000Z"},
            None,
            ["failing every attempt since 2026-11-22 10:00:00 UTC"],
        ),
        ({"status": "active"}, metrics_answer(attempts=9, failed=9), []),  # too few attempts to judge
        ({"status": "active"}, metrics_answer(attempts=10, failed=1), []),  # 90%: not under
        (
            {"status": "active"},
            metrics_answer(attempts=10, failed=2),
            ["success rate 80% in the last hour (2 of 10 attempts failed)"],
        ),
        ({"status": "paused"}, metrics_answer(open_now=3, oldest_ms=300_000), []),  # 5 min: not older
        (
            {"status": "paused"},
            metrics_answer(open_now=3, oldest_ms=300_001),
            ["oldest open delivery waiting 5 min 0 s (3 open)"],
        ),
    ],
)
def test_the_health_rules(tab: Tab, subscription: dict[str, Any], metrics: Any, why: list[str]) -> None:
    assert _module(tab, "metrics.js", "m.problems(arg[0], arg[1])", [subscription, metrics]) == why


def _canvas_pixels(figure: Any) -> dict[str, int]:
    """How many pixels of a chart's canvas are drawn at all, and how many are red-ish (failed)."""
    counted: dict[str, int] = figure.locator("canvas").evaluate(
        """(canvas) => {
            const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
            let drawn = 0, red = 0;
            for (let i = 0; i < data.length; i += 4) {
              if (data[i + 3] > 0) drawn += 1;
              if (data[i + 3] > 200 && data[i] > 150 && data[i + 1] < 90 && data[i + 2] < 100) red += 1;
            }
            return { width: canvas.width, height: canvas.height, drawn, red };
        }"""
    )
    return counted


def test_the_subscription_screen_draws_its_charts_and_health_from_its_metrics(tab: Tab) -> None:
    # Given: a subscription whose last hour failed half its attempts
    subscription = "/rooms/room_1/subscriptions/sub_1"
    tab.answers.update(
        {
            "/rooms/room_1": ROOM,
            subscription: {
                "id": "sub_1",
                "type": "PUSH",
                "status": "active",
                "eventTypes": [],
                "pushUrl": "https://h.example/x",
            },
            f"{subscription}/schedule": {"attempts": [], "note": ""},
            f"{subscription}/transformation": {"current": None, "previous": None},
            f"{subscription}/deliveries": {"deliveries": [], "nextCursor": None},
            f"{subscription}/dead-letters": {"deadLetters": [], "nextCursor": None},
            f"{subscription}/metrics": metrics_answer(attempts=20, failed=10, open_now=2, oldest_ms=12_000),
        }
    )

    metrics_urls: list[str] = []
    tab.page.on("request", lambda sent: metrics_urls.append(sent.url) if "/metrics?" in sent.url else None)

    # When
    tab.page.goto(f"{ORIGIN}/console#/rooms/room_1/subscriptions/sub_1")

    # Then: the health is the metrics', and each of the five charts drew its 60 points on a canvas
    health = tab.page.get_by_role("region", name="Health")
    expect(health).to_contain_text("50% (10 of 20 attempts succeeded)")
    expect(health).to_contain_text("unhealthy success rate 50% in the last hour (10 of 20 attempts failed)")
    expect(health).to_contain_text("2 open, the oldest waiting 12 s")
    charts = tab.page.locator("figure.chart")
    expect(charts).to_have_count(5)
    for index in range(5):
        expect(charts.nth(index)).to_have_attribute("data-points", "60")
    volume = _canvas_pixels(tab.page.locator("figure[data-chart=volume]"))
    assert volume["width"] > 300, volume
    assert volume["height"] > 100, volume
    assert volume["drawn"] > 1000, volume  # axes, grid and lines: not a blank canvas
    assert volume["red"] > 20, volume  # the failed attempts' line
    assert set(tab.asked) <= set(tab.answers), tab.asked

    assert "resolution=1m" in metrics_urls[0]

    # When: 7 days are asked for
    tab.page.get_by_label("Range").select_option("7d")

    # Then: they are read by hour, and drawn again
    expect(tab.page.locator(".charts")).to_have_attribute("data-range", "7d")
    assert "resolution=1h" in metrics_urls[-1], metrics_urls[-1]


def test_the_home_screen_names_unhealthy_subscriptions_within_its_request_bound(tab: Tab) -> None:
    # Given: 15 rooms of 2 subscriptions each; one failing in room 3, one at 50% in room 5, one
    # failing in room 12 (past the rooms checked); and a rule firing on room 5's subscription
    rooms = [{**ROOM, "id": f"room_{n}", "name": f"room {n}"} for n in range(15)]
    rule = {
        "id": "alr_1", "name": "room 5 failing", "scope": {"roomId": "room_5", "subscriptionId": "sub_5_0"},
        "condition": {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 10},
        "notify": {"email": "ops@example.com"}, "state": "firing", "value": 0.5,
        "changedAt": "2026-11-22T10:05:00.000Z", "snoozedUntil": None,
        "createdAt": "2026-11-22T10:00:00.000Z", "updatedAt": "2026-11-22T10:00:00.000Z",
    }  # fmt: skip
    fired = {"ruleId": "alr_1", "name": "room 5 failing", "state": "firing", "value": 0.5,
             "at": "2026-11-22T10:05:00.000Z"}  # fmt: skip
    tab.answers.update(
        {
            "/rooms": {"rooms": rooms, "nextCursor": None},
            "/metrics": metrics_answer(attempts=40, failed=10),
            "/alerts": {"firing": [rule], "recent": [fired]},
        }
    )
    for n in range(15):
        subscriptions = [
            {
                "id": f"sub_{n}_{k}",
                "roomId": f"room_{n}",
                "type": "PUSH",
                "status": "active",
                "pushUrl": "https://h.example/x",
            }
            for k in range(2)
        ]
        if n in (3, 12):
            subscriptions[1]["failingSince"] = "2026-11-22T10:00:00.000Z"
        tab.answers[f"/rooms/room_{n}/subscriptions"] = {"subscriptions": subscriptions, "nextCursor": None}
        tab.answers[f"/rooms/room_{n}/metrics"] = metrics_answer(attempts=40, failed=10 if n == 5 else 0)
        for k in range(2):
            tab.answers[f"/rooms/room_{n}/subscriptions/sub_{n}_{k}/metrics"] = metrics_answer(
                attempts=20, failed=10 if (n, k) == (5, 0) else 0
            )

    # When
    tab.page.goto(f"{ORIGIN}/console#/rooms")

    # Then: the unhealthy subscriptions of the rooms checked are named, with why
    unhealthy = tab.page.get_by_role("table", name="Unhealthy subscriptions")
    expect(unhealthy.locator("tbody tr")).to_have_count(2)
    expect(unhealthy).to_contain_text("sub_3_1")
    expect(unhealthy).to_contain_text("failing every attempt since")
    expect(unhealthy).to_contain_text("sub_5_0")
    expect(unhealthy).to_contain_text("success rate 50% in the last hour")
    rooms_table = tab.page.get_by_role("table", name="Your rooms")
    expect(rooms_table.locator("tbody tr").nth(5)).to_contain_text("unhealthy")
    expect(rooms_table.locator("tbody tr").nth(12)).to_contain_text("not checked")
    expect(tab.page.get_by_text("Last hour, all rooms: 75% (30 of 40 attempts succeeded)")).to_be_visible()
    # and the rule firing, what it measured, and the alert it raised
    firing = tab.page.get_by_role("table", name="Alerts firing")
    expect(firing.locator("tbody tr")).to_have_count(1)
    expect(firing).to_contain_text("room 5 failing")
    expect(firing).to_contain_text("success rate under 90% in the last 5 min (at least 10 attempts)")
    expect(firing).to_contain_text("50%")
    expect(tab.page.get_by_role("table", name="Latest alerts").locator("tbody tr")).to_have_count(1)
    # and within the bound: the list, the tenant, the alerts, 10 rooms (metrics, subscriptions), 20
    # subscriptions
    asked = list(tab.asked)
    assert asked.count("/rooms") == 1
    assert asked.count("/metrics") == 1
    assert asked.count("/alerts") == 1
    assert len([p for p in asked if re.fullmatch(r"/rooms/room_\d+/metrics", p)]) == 10
    assert len([p for p in asked if p.endswith("/subscriptions")]) == 10
    read = [p for p in asked if re.fullmatch(r"/rooms/room_\d+/subscriptions/\w+/metrics", p)]
    assert len(read) == 20
    assert "/rooms/room_5/subscriptions/sub_5_0/metrics" in read
    assert len(asked) == 43
    assert not [p for p in asked if "room_12" in p]


def test_an_event_type_opens_from_the_header_and_the_catalog_with_its_schemas(tab: Tab) -> None:
    # Given: a catalog of one event type (its name needs encoding in a path: a dot is fine)
    event_type = {
        "name": "order.created",
        "description": "An order was placed",
        "validation": "warn",
        "deprecated": False,
        "archived": False,
        "versions": ["1"],
        "createdAt": "2026-11-22T10:00:00.000Z",
        "updatedAt": "2026-11-22T10:00:00.000Z",
    }
    tab.answers.update(
        {
            "/rooms": {"rooms": [], "nextCursor": None},
            "/metrics": metrics_answer(),
            "/event-types": {"eventTypes": [{**event_type, "schemas": None}], "nextCursor": None},
            "/event-types/order.created": {**event_type, "schemas": {"1": {"required": ["orderId"]}}},
        }
    )
    tab.page.goto(f"{ORIGIN}/console#/rooms")

    # When: from the header, then the catalog's link
    tab.page.get_by_role("navigation", name="Sections").get_by_role("link", name="Event types").click()
    tab.page.get_by_role("table", name="Event types").get_by_role("link", name="order.created").click()

    # Then
    expect(tab.page.get_by_role("heading", name="Event type order.created", level=1)).to_be_visible()
    expect(tab.page.get_by_text('"orderId"')).to_be_visible()
    assert "/event-types/order.created" in tab.asked


def test_an_ended_delivery_shows_no_next_attempt(tab: Tab) -> None:
    # Given: a cancelled delivery that still carries the due time it had
    message: dict[str, Any] = {
        "messageId": "msg_1",
        "eventType": "order.created",
        "eventVersion": "1",
        "correlationId": "c",
        "publishedAt": "2026-11-22T10:00:00.000Z",
        "deliverAt": "2026-11-22T12:00:00.000Z",
        "cancelledAt": "2026-11-22T10:01:00.000Z",
        "expiresAt": None,
        "payload": {},
        "deliveries": [
            {
                "subscriptionId": "sub_1",
                "status": "cancelled",
                "attempts": 0,
                "nextAttemptAt": "2026-11-22T12:00:00.000Z",
                "lastError": None,
                "messageId": "msg_1",
                "updatedAt": "2026-11-22T10:01:00.000Z",
            }
        ],
    }
    subscription = "/rooms/room_1/subscriptions/sub_1"
    tab.answers.update(
        {
            "/rooms/room_1": ROOM,
            "/rooms/room_1/messages/msg_1": message,
            "/rooms/room_1/messages/msg_1/attempts": {"attempts": []},
            subscription: {
                "id": "sub_1",
                "type": "PULL",
                "status": "active",
                "eventTypes": [],
                "ackWaitMs": 30000,
            },
            f"{subscription}/schedule": {"attempts": [], "note": ""},
            f"{subscription}/transformation": {"current": None, "previous": None},
            f"{subscription}/deliveries": {"deliveries": message["deliveries"], "nextCursor": None},
            f"{subscription}/dead-letters": {"deadLetters": [], "nextCursor": None},
            f"{subscription}/metrics": metrics_answer(),
        }
    )

    # When: its message, then its subscription
    tab.page.goto(f"{ORIGIN}/console#/rooms/room_1/messages/msg_1")

    # Then: neither shows when it would have been attempted
    expect(tab.page.get_by_role("region", name="Delivery to sub_1")).to_contain_text("none: it has ended")
    expect(tab.page.get_by_role("img", name=re.compile("^Timeline of"))).to_have_count(0)
    tab.page.goto(f"{ORIGIN}/console#/rooms/room_1/subscriptions/sub_1")
    row = tab.page.get_by_role("region", name="Deliveries").locator("tbody tr")
    expect(row).to_contain_text("cancelled")
    expect(row).not_to_contain_text("12:00:00")
