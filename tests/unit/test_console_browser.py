"""The console's scripts in headless chromium, on a fake origin where the test answers every request
(no stack): its router and the API paths it builds never turn an id that is not plain into a
request. How the files are served: tests/unit/test_console.py; the browser tests against the stack:
tests/e2e/test_console.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
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
