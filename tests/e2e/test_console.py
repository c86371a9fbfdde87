"""The operator console (/console) in a real headless browser (Debian's chromium, driven by
Playwright) against the local stack: an operator signs in, creates a room and a PUSH subscription,
publishes, watches a failing delivery's timeline grow until it dies, and replays the dead letter
once the receiver recovers; retries now, clears all pending, pauses and resumes; sees the API's own
error messages, and a message instead of a blank page when the API cannot be reached. The key stays
in session storage and no URL ever holds it.

A failing test leaves a screenshot in test-artifacts/console/<test>.png; the charts' test always
leaves one (charts.png).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, ConsoleMessage, Page, Route, expect, sync_playwright

from roomcast_dev.browser import HOW_TO_INSTALL, find_browser
from roomcast_dev.stack import LocalStack
from roomcast_dev.webhook_receiver import Reply, always, statuses
from tests.e2e.conftest import ApiClient, wait_until
from tests.e2e.test_publish_and_pull import publish
from tests.e2e.webhook_server import WebhookServers, webhook_servers

__all__ = ["webhook_servers"]

CHROMIUM = find_browser()  # `make test` found or provided it first (roomcast_dev.browser)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEADLINE_MS = 30_000
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"
KEY_STORAGE = "roomcast.apiKey"
DOWN = Reply(503, {"content-type": "application/json"}, b'{"error":"database down"}')


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.fail(HOW_TO_INSTALL, pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@dataclass
class Console:
    """A browser tab on the stack's console, with every URL it requested and every script error."""

    page: Page
    url: str
    requested: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def sign_in(self, key: str) -> None:
        self.page.goto(self.url)
        self.page.get_by_label("API key").fill(key)
        self.page.get_by_role("button", name="Sign in").click()

    def stored_key(self) -> str | None:
        stored: str | None = self.page.evaluate(f"() => sessionStorage.getItem('{KEY_STORAGE}')")
        return stored

    def status(self) -> str:
        return self.page.get_by_role("status").inner_text()

    def alert(self) -> str:
        return self.page.get_by_role("alert").inner_text()


@pytest.fixture
def console(browser: Browser, empty_stack: LocalStack, request: pytest.FixtureRequest) -> Iterator[Console]:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(DEADLINE_MS)
    expect.set_options(timeout=DEADLINE_MS)
    tab = Console(page, f"{empty_stack.api_url}/console")
    page.on("request", lambda sent: tab.requested.append(sent.url))
    page.on("pageerror", lambda error: tab.errors.append(str(error)))

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":  # a refused policy, a failed request, an uncaught error
            tab.errors.append(message.text)

    page.on("console", on_console)
    failures_before = request.session.testsfailed
    yield tab
    if request.session.testsfailed > failures_before:  # this test's call failed: keep what it showed
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{request.node.name}.png", full_page=True)
    context.close()


@pytest.fixture
def signed_in(console: Console, tenant_a: ApiClient) -> Console:
    """The console with tenant A's key, on its rooms page."""
    assert tenant_a.api_key is not None
    console.sign_in(tenant_a.api_key)
    expect(console.page.get_by_role("heading", name="Rooms", level=1)).to_be_visible()
    return console


def _ids(text: str, prefix: str) -> str:
    found = re.search(rf"{prefix}_[0-9a-f]{{32}}", text)
    assert found, f"no {prefix} id in {text!r}"
    return found.group(0)


def _timeline_rows(page: Page) -> int:
    return page.get_by_role("table", name=re.compile("^Timeline of")).locator("tbody tr").count()


def test_an_operator_watches_a_failing_delivery_die_and_replays_it(
    console: Console, tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a receiver that is down, and an operator signed in with a key
    receiver = webhook_servers(always(DOWN))
    key = tenant_a.api_key
    assert key is not None
    page = console.page
    console.sign_in(key)
    expect(page.get_by_role("heading", name="Rooms", level=1)).to_be_visible()

    # When: they create a room and a PUSH subscription with a short retry policy, and publish
    page.get_by_label("Name").fill("orders")
    page.get_by_role("button", name="Create room").click()
    expect(page.get_by_role("heading", name="Room orders")).to_be_visible()
    page.get_by_label("Webhook URL").fill(receiver.url())
    page.get_by_label("Redeliveries").fill("2")
    page.get_by_label("First redelivery after (ms)").fill("3000")
    page.get_by_label("Delay multiplier").fill("1")
    page.get_by_role("button", name="Subscribe").click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Subscription sub_\w+ created"))
    subscription_id = _ids(console.status(), "sub")
    expect(page.get_by_text("Signing secret of")).to_contain_text("whsec_")
    page.get_by_label("Event type", exact=True).fill("order.created")
    page.get_by_label("Payload (JSON)").fill('{"orderId": 7}')
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Message msg_\w+ published"))
    message_id = _ids(console.status(), "msg")
    page.get_by_role("link", name="Open its timeline").click()

    # Then: the message's timeline grows attempt by attempt, with what the receiver answered
    delivery = page.get_by_role("region", name=f"Delivery to {subscription_id}")
    timeline = page.get_by_role("table", name=re.compile("^Timeline of"))
    expect(timeline.locator("tbody tr")).not_to_have_count(0)
    first_seen = _timeline_rows(page)
    expect(timeline.locator("tbody tr")).to_have_count(3)
    assert first_seen < 3
    expect(delivery).to_contain_text("dead")
    expect(timeline.locator("tbody tr").first).to_contain_text("503")
    expect(timeline.locator("tbody tr").first).to_contain_text('{"error":"database down"}')
    expect(page.get_by_role("img", name=re.compile("^Timeline of"))).to_be_visible()

    # When: the receiver recovers and the operator replays the dead letter from the subscription page
    receiver.respond_with(always())
    delivery.get_by_role("link", name=subscription_id).click()
    expect(page.get_by_role("heading", name=f"Subscription {subscription_id}")).to_be_visible()
    expect(page.get_by_role("img", name=re.compile("^Retry schedule: 3 attempts"))).to_be_visible()
    expect(page.get_by_role("region", name="Health")).to_contain_text("0% (0 of 3 attempts succeeded)")
    expect(page.get_by_role("region", name="Health")).to_contain_text("HTTP 503")
    expect(page.get_by_role("region", name="Health")).to_contain_text("failing every attempt since")
    page.get_by_role("button", name=f"Replay {message_id}").click()

    # Then: it is delivered, and its timeline shows the successful attempt
    expect(page.get_by_role("status")).to_contain_text("Replayed 1 dead letter")
    assert receiver.wait_for_requests(4, DEADLINE_MS / 1000)[3].json["messageId"] == message_id
    expect(page.get_by_role("region", name="Dead letters")).to_contain_text("No dead letters.")
    page.get_by_role("link", name=message_id).first.click()
    expect(delivery).to_contain_text("delivered")
    expect(timeline.locator("tbody tr").last).to_contain_text("200")
    expect(timeline.locator("tbody tr")).to_have_count(4)  # the three before the replay are kept
    # and the key was only ever in session storage and an Authorization header
    assert console.stored_key() == key
    assert page.evaluate("() => localStorage.length") == 0
    assert len(console.requested) > 10
    assert [url for url in console.requested if key in url] == []
    assert key not in page.url
    assert console.errors == []


def test_retry_now_clear_all_pause_and_resume_from_the_subscription_page(
    console: Console, tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: two deliveries retrying with an hour to wait
    receiver = webhook_servers(always(DOWN))
    room = tenant_a.create_room(deliveryDelayMs=3_600_000)
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=receiver.url())
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"

    def retrying(attempts: int) -> bool:
        deliveries = tenant_a.get(f"{path}/deliveries").json()["deliveries"]
        return [(d["status"], d["attempts"]) for d in deliveries] == [("retrying", attempts)] * 2

    for _ in range(2):
        publish(tenant_a, room["id"])
    wait_until(lambda: retrying(1), "both retrying")
    assert tenant_a.api_key is not None
    console.sign_in(tenant_a.api_key)
    page = console.page
    page.goto(f"{console.url}#/rooms/{room['id']}/subscriptions/{subscription['id']}")
    deliveries = page.get_by_role("region", name="Deliveries")
    expect(deliveries.get_by_role("cell", name="retrying", exact=True)).to_have_count(2)

    # When: retry now
    page.get_by_role("button", name="Retry now").click()

    # Then: both are attempted again at once
    expect(page.get_by_role("status")).to_contain_text("Retried 2 deliveries now.")
    receiver.wait_for_requests(4, DEADLINE_MS / 1000)
    wait_until(lambda: retrying(2), "both retrying again")

    # When: clear all pending, confirmed in the dialog
    page.get_by_role("button", name="Clear all pending…").click()
    page.get_by_role("dialog").get_by_role("button", name="Clear all pending").click()

    # Then
    expect(page.get_by_role("status")).to_contain_text("Cleared 2 deliveries.")
    expect(deliveries.get_by_role("cell", name="cleared", exact=True)).to_have_count(2)
    assert {d["status"] for d in tenant_a.get(f"{path}/deliveries").json()["deliveries"]} == {"cleared"}

    # When: paused, then resumed
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("status")).to_contain_text("is paused")
    paused = tenant_a.get(path).json()["status"]
    page.get_by_role("button", name="Resume").click()

    # Then
    expect(page.get_by_role("status")).to_contain_text("is active")
    assert (paused, tenant_a.get(path).json()["status"]) == ("paused", "active")


def test_a_refused_key_shows_the_gateways_message_and_is_not_kept(console: Console) -> None:
    # When
    console.sign_in("rc_not_a_key_of_anyone_0000000000000000000000")

    # Then
    expect(console.page.get_by_role("alert")).to_contain_text("Forbidden")
    assert "HTTP 403" in console.alert()
    expect(console.page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert console.stored_key() is None


def test_an_invalid_field_and_an_unknown_room_show_the_apis_message_and_code(
    signed_in: Console, tenant_a: ApiClient
) -> None:
    # Given
    console = signed_in
    page = console.page

    # When: a room with too many redeliveries
    page.get_by_label("Name").fill("orders")
    page.get_by_label("Redeliveries").fill("51")
    page.get_by_role("button", name="Create room").click()

    # Then: the API's message, code and field, with the form still there
    expect(page.get_by_role("alert")).to_contain_text("less than or equal to 50")
    assert "validation_error" in console.alert()
    assert "body.deliveryAttempts" in console.alert()
    expect(page.get_by_role("button", name="Create room")).to_be_visible()
    assert tenant_a.get("/rooms").json()["rooms"] == []

    # When: a room that does not exist
    page.goto(f"{console.url}#/rooms/room_00000000000000000000000000000000")

    # Then
    expect(page.get_by_role("heading", name="This page could not be loaded")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("not_found")


def test_an_unreachable_api_or_an_unexpected_answer_shows_a_message_not_a_blank_page(
    signed_in: Console,
) -> None:
    # Given: signed in, then the API stops answering
    page = signed_in.page
    page.route(re.compile(r"/rooms\b"), lambda route: route.abort())

    # When
    page.reload()

    # Then
    expect(page.get_by_role("heading", name="This page could not be loaded")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("could not be reached")

    # When: an answer that is not the API's (a proxy's HTML error page)
    page.unroute(re.compile(r"/rooms\b"))

    def proxy_page(route: Route) -> None:
        route.fulfill(status=502, content_type="text/html", body="<html><h1>Bad Gateway</h1></html>")

    page.route(re.compile(r"/rooms\b"), proxy_page)
    page.get_by_role("button", name="Try again").click()

    # Then
    expect(page.get_by_role("alert")).to_contain_text("Unexpected answer from the API: HTTP 502")
    expect(page.get_by_role("heading", name="This page could not be loaded")).to_be_visible()


def test_sign_out_forgets_the_key(signed_in: Console) -> None:
    # When
    signed_in.page.get_by_role("button", name="Sign out").click()

    # Then
    expect(signed_in.page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert signed_in.stored_key() is None


def test_the_stack_serves_the_console_with_a_strict_policy_and_nothing_else(
    empty_stack: LocalStack, http: requests.Session
) -> None:
    # When
    page = http.get(f"{empty_stack.api_url}/console", timeout=10)
    script = http.get(f"{empty_stack.api_url}/console/console.js", timeout=10)
    outside = http.get(f"{empty_stack.api_url}/console/..%2Fhandler.py", timeout=10)

    # Then: no key needed; the page loads only its own files, under a policy that forbids inline code
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "connect-src 'self'" in policy
    assert "unsafe" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert 'src="console/console.js"' in page.text
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert outside.status_code == 404
    assert outside.json()["error"]["code"] == "not_found"


def test_the_origins_root_opens_the_console_and_its_icon_needs_no_key(
    empty_stack: LocalStack, http: requests.Session
) -> None:
    # When: someone opens the API's URL itself, and a browser asks the origin for its icon
    root = http.get(f"{empty_stack.api_url}/", allow_redirects=False, timeout=10)
    landed = http.get(f"{empty_stack.api_url}/", timeout=10)
    icon = http.get(f"{empty_stack.api_url}/favicon.ico", timeout=10)

    # Then: the root redirects to the console (its body names the reference too), not the gateway's
    # 404; the icon is the console's SVG, kept a day, not the gateway's 401
    assert root.status_code == 302
    assert root.headers["location"] == "/console"
    assert root.json() == {"console": "/console", "docs": "/docs", "openapi": "/openapi.json"}
    assert landed.url == f"{empty_stack.api_url}/console"
    assert "<title>roomcast console</title>" in landed.text
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.headers["cache-control"] == "public, max-age=86400"
    assert icon.headers["x-content-type-options"] == "nosniff"
    assert icon.text.startswith("<svg")


def test_the_api_docs_work_under_their_policy(console: Console, empty_stack: LocalStack) -> None:
    # Given: the Swagger UI page, whose inline code only its policy's hashes let run
    page = console.page
    answers: list[int] = []
    page.on(
        "response", lambda response: answers.append(response.status) if "/rooms" in response.url else None
    )

    # When: an operation is tried out from it
    page.goto(f"{empty_stack.api_url}/docs")
    operation = page.locator(".opblock").filter(has_text="List rooms")
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.get_by_role("button", name="Execute").click()

    # Then: it rendered and called the API (401: no key given), and the policy refused nothing
    expect(operation.locator(".live-responses-table")).to_contain_text("401")
    assert answers == [401]
    assert [url for url in console.requested if not url.startswith(empty_stack.api_url)] == []
    assert [error for error in console.errors if "401" not in error] == []


@pytest.mark.parametrize(
    "address", ["#/rooms/..", "#/rooms/%2E%2E/subscriptions/sub_1", "#/rooms/room_1/messages/."]
)
def test_an_address_whose_id_is_not_plain_requests_nothing(
    signed_in: Console, empty_stack: LocalStack, address: str
) -> None:
    # Given: signed in, on the rooms page
    page = signed_in.page
    before = len(signed_in.requested)

    # When: an address whose id is a dot segment (rooms/.. would be GET / on the API)
    page.goto(f"{signed_in.url}{address}")

    # Then: the console says so and asks the API nothing
    expect(page.get_by_role("heading", name="Not a roomcast id")).to_be_visible()
    api = empty_stack.api_url
    assert [url for url in signed_in.requested[before:] if not url.startswith(f"{api}/console")] == []
    assert signed_in.errors == []


def test_a_filter_policy_is_set_shown_explained_on_a_message_and_dry_run(signed_in: Console) -> None:
    # Given: a room with a PULL subscription for big orders only, made in the console
    page = signed_in.page
    page.get_by_label("Name").fill("orders")
    page.get_by_role("button", name="Create room").click()
    expect(page.get_by_role("heading", name="Room orders")).to_be_visible()
    page.get_by_label("Type", exact=True).select_option("PULL")
    page.get_by_label("Filter policy (JSON)").fill('{"amount": [{"numeric": [">=", 100]}]}')
    page.get_by_role("button", name="Subscribe").click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Subscription sub_\w+ created"))
    subscription_id = _ids(signed_in.status(), "sub")
    page.get_by_label("Event type", exact=True).fill("order.created")
    page.get_by_label("Payload (JSON)").fill('{"amount": 5}')

    # When: a dry run, then the publish
    page.get_by_role("button", name="Dry run").click()

    # Then: each says why the subscription does not get it
    expect(page.get_by_role("status")).to_contain_text("Dry run: 0 of 1 subscriptions would get it.")
    expect(page.get_by_role("table", name="Dry run")).to_contain_text("payload.amount: 5 is not >= 100")
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Message msg_\w+ published"))
    expect(page.get_by_role("table", name="Filtered out")).to_contain_text(subscription_id)
    page.get_by_role("link", name="Open its timeline").click()
    expect(page.get_by_role("table", name="Filtered out")).to_contain_text("payload.amount: 5 is not >= 100")
    # and the subscription's page shows its policy
    page.goto(f"{signed_in.url}#/rooms/{_ids(page.url, 'room')}/subscriptions/{subscription_id}")
    expect(page.get_by_text('{"amount":[{"numeric":[">=",100]}]}')).to_be_visible()
    assert signed_in.errors == []


def test_the_catalog_screen_adds_an_event_type_checks_a_payload_and_a_message_shows_its_errors(
    signed_in: Console, tenant_a: ApiClient
) -> None:
    # Given: the operator opens the catalog from the rooms page
    page = signed_in.page
    page.get_by_role("link", name="the event-type catalog").click()
    expect(page.get_by_role("heading", name="Event types", level=1)).to_be_visible()

    # When: they add an event type whose schema only warns, and check a payload against it
    page.get_by_label("Event type name").fill("order.created")
    page.get_by_label("Validation").select_option("warn")
    page.get_by_label("Schema (JSON Schema 2020-12)").fill('{"type": "object", "required": ["orderId"]}')
    page.get_by_role("button", name="Add event type").click()
    expect(page.get_by_role("status")).to_contain_text("Event type order.created added.")
    expect(page.get_by_role("table", name="Event types")).to_contain_text("warn")
    page.get_by_label("Event type", exact=True).fill("order.created")
    page.get_by_label("Payload to check (JSON)").fill('{"amount": 5}')
    page.get_by_role("button", name="Check payload").click()

    # Then: the check names the error, and a message published with it shows it on its page
    expect(page.get_by_role("status")).to_contain_text("The payload breaks its schema: 1 error(s).")
    expect(page.get_by_role("table", name="Schema errors")).to_contain_text(
        '"orderId" is a required property'
    )
    room = tenant_a.create_room()
    published = publish(tenant_a, room["id"], payload={"amount": 5})
    page.goto(f"{signed_in.url}#/rooms/{room['id']}/messages/{published['messageId']}")
    expect(page.get_by_role("table", name="Schema errors")).to_contain_text(
        '"orderId" is a required property'
    )
    assert signed_in.errors == []


# How many pixels of a chart's canvas are drawn at all, and how many in the failed attempts' red
# (console.css --bad, #cf222e), read back from the canvas itself.
CANVAS_PIXELS = """(canvas) => {
    const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    let drawn = 0, red = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 0) drawn += 1;
      if (data[i + 3] > 200 && data[i] > 150 && data[i + 1] < 90 && data[i + 2] < 100) red += 1;
    }
    return { width: canvas.width, height: canvas.height, drawn, red };
}"""


def test_the_charts_draw_a_subscriptions_metrics_and_the_home_screen_names_a_failing_one(
    console: Console, tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a room whose flaky endpoint fails 2 of its first 5 requests, and whose other endpoint is down
    flaky = webhook_servers(statuses(500, 200, 500, 200, 200))
    down = webhook_servers(always(DOWN))
    room = tenant_a.create_room(deliveryDelayMs=500, deliveryDelayMultiplier=1.0, deliveryAttempts=2)
    charted = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=flaky.url())
    failing = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=down.url())
    path = f"/rooms/{room['id']}/subscriptions"
    for _ in range(6):
        publish(tenant_a, room["id"])

    def settled() -> bool:
        summary = tenant_a.get(f"{path}/{charted['id']}/metrics").json()["summary"]
        other = tenant_a.get(f"{path}/{failing['id']}").json()
        return (summary["attempts"], summary["failedAttempts"]) == (8, 2) and bool(
            other["failingSince"] or other["status"] == "disabled"
        )

    wait_until(settled, "the flaky endpoint's 8 attempts in its metrics, the other failing", 60)
    assert tenant_a.api_key is not None

    # When: the operator signs in
    console.sign_in(tenant_a.api_key)
    page = console.page

    # Then: the home screen names the failing subscription, with its room and why, and not the flaky
    # one (8 attempts: too few to judge its 75%)
    unhealthy = page.get_by_role("table", name="Unhealthy subscriptions")
    expect(unhealthy.locator("tbody tr")).to_have_count(1)
    expect(unhealthy).to_contain_text(failing["id"])
    expect(unhealthy).to_contain_text(room["name"])
    expect(unhealthy).to_contain_text(re.compile("failing every attempt since|disabled"))
    expect(page.get_by_role("table", name="Your rooms")).to_contain_text("1 unhealthy subscription")
    expect(page.get_by_role("status")).to_have_text("", timeout=10_000)  # "Signed in." went away

    # When: they open the flaky subscription
    page.goto(f"{console.url}#/rooms/{room['id']}/subscriptions/{charted['id']}")

    # Then: its health is the metrics', and the five charts drew them on canvases
    expect(page.get_by_role("region", name="Health")).to_contain_text("75% (6 of 8 attempts succeeded)")
    volume = page.locator("figure[data-chart=volume]")
    expect(volume).to_have_attribute("data-drawn", re.compile(r"^[1-9]"))
    expect(page.locator("figure.chart canvas")).to_have_count(5)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = page.screenshot(path=ARTIFACTS / "charts.png", full_page=True)
    assert shot.startswith(b"\x89PNG")
    assert len(shot) > 20_000
    charts = ("volume", "successRate", "latency", "delay", "backlog")
    canvases = [page.locator(f"figure[data-chart={key}] canvas").evaluate(CANVAS_PIXELS) for key in charts]
    for canvas in canvases:
        assert canvas["width"] > 200, canvas
        assert canvas["height"] > 100, canvas
        assert canvas["drawn"] > 1_000, canvas  # axes, grid and series: not a blank canvas
    assert canvases[0]["red"] > 10, canvases[0]  # the 2 failed attempts' line

    # When: the last 7 days are asked for
    page.get_by_label("Range").select_option("7d")

    # Then: the charts are read by hour and drawn again
    expect(page.locator(".charts")).to_have_attribute("data-range", "7d")
    expect(volume).to_have_attribute("data-resolution", "1h")
    # and the room's list shows each subscription's health; nothing the policy refused, no error
    page.goto(f"{console.url}#/rooms/{room['id']}")
    subscriptions = page.get_by_role("table", name="Subscriptions")
    expect(subscriptions.locator("tr", has_text=failing["id"])).to_contain_text("unhealthy")
    expect(subscriptions.locator("tr", has_text=charted["id"])).to_contain_text("75% of 8")
    assert console.errors == []


def test_the_access_screen_makes_a_scoped_key_and_opens_a_portal_session(
    signed_in: Console, tenant_a: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()
    page = signed_in.page

    # When: the operator makes a key that only publishes, on one room
    page.get_by_role("link", name="Access").click()
    expect(page.get_by_role("heading", name="Access", level=1)).to_be_visible()
    page.get_by_label("admin").uncheck()
    page.get_by_label("publish").check()
    page.locator("#key-rooms").fill(room["id"])
    page.get_by_role("button", name="Create key").click()

    # Then: the key is shown once, listed with its scope and room, and publishes but cannot manage
    expect(page.get_by_role("status")).to_contain_text("created")
    shown = page.get_by_text("API key (shown once)").inner_text()
    key = re.search(r"rc_\S+", shown)
    assert key is not None
    expect(page.get_by_role("table", name="API keys")).to_contain_text(room["id"])
    publisher = ApiClient(tenant_a.base_url, key.group(0), tenant_a.session)
    publish(publisher, room["id"])
    assert publisher.delete(f"/rooms/{room['id']}").status_code == 403

    # When: a portal session is opened for a customer
    page.get_by_label("Customer (consumerId)").fill("acme")
    page.locator("#portal-rooms").fill(room["id"])
    page.get_by_role("button", name="Open portal session").click()

    # Then: its link is shown, and opens the customer's portal
    expect(page.get_by_role("status")).to_contain_text("Portal session ps_")
    url = page.locator('a[href*="/portal/ps_"]').get_attribute("href")
    assert url is not None
    assert "#rcp_" in url
    page.goto(url)
    expect(page.get_by_role("heading", name="Your endpoints")).to_be_visible()
    assert signed_in.errors == []
