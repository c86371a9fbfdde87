"""The customers' portal page (/portal/{sessionId}) in a real headless browser against the local
stack: a customer opens the link, adds an endpoint, reveals and rotates its secret, sees a failing
delivery and retries it; the page opens inside an iframe on an origin the tenant lists, and not on
another (the page's Content-Security-Policy: frame-ancestors)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from roomcast_dev.webhook_receiver import statuses
from tests.e2e.conftest import ApiClient, wait_until
from tests.e2e.test_console import ARTIFACTS, DEADLINE_MS, browser
from tests.e2e.test_publish_and_pull import publish
from tests.e2e.webhook_server import WebhookServers, webhook_servers

__all__ = ["browser", "webhook_servers"]


class _Embedding(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: Any) -> None:  # the base class's name
        pass


@pytest.fixture
def embedding() -> Iterator[Any]:
    """A factory of pages on loopback origins of their own that frame a URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(framed_url: str) -> str:
        handler = type("Embedding", (_Embedding,), {"page": _frame(framed_url)})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _frame(url: str) -> bytes:
    frame = f'<iframe title="portal" src="{url}" width="900" height="700"></iframe>'
    return f"<!doctype html><title>host</title>{frame}".encode()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(DEADLINE_MS)
    expect.set_options(timeout=DEADLINE_MS)
    failures_before = request.session.testsfailed
    yield tab
    if request.session.testsfailed > failures_before:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=ARTIFACTS / f"{request.node.name}.png", full_page=True)
    context.close()


def _portal(tenant: ApiClient, room_id: str, **settings: Any) -> dict[str, Any]:
    saved = tenant.request(
        "PUT", "/portal-settings", json={"title": "Acme webhooks", "accentColor": "#0a7d5a", **settings}
    )
    assert saved.status_code == 200, saved.text
    created = tenant.post(
        "/portal-sessions", {"consumerId": "acme", "rooms": [room_id], "eventTypes": ["order.created"]}
    )
    assert created.status_code == 201, created.text
    session: dict[str, Any] = created.json()
    return session


def test_a_customer_adds_an_endpoint_rotates_its_secret_and_retries_a_failing_delivery(
    page: Page, tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a room that waits 10 minutes before a redelivery, a receiver that fails once, a session
    room = tenant_a.create_room(deliveryDelayMs=600_000)
    receiver = webhook_servers(statuses(503, 200))
    session = _portal(tenant_a, room["id"])
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # When: the customer opens the link and adds an endpoint
    page.goto(session["url"])
    expect(page.get_by_role("heading", name="Your endpoints")).to_be_visible()
    expect(page.locator("#title")).to_have_text("Acme webhooks")
    assert "#" not in page.url  # the token left the address bar
    page.get_by_label("Endpoint URL").fill(receiver.url())
    page.get_by_role("button", name="Add endpoint").click()
    expect(page.get_by_role("status")).to_contain_text("whsec_")
    first_secret = re.search(r"whsec_\S+", page.get_by_role("status").inner_text())
    assert first_secret is not None
    endpoint = page.get_by_role("region", name=receiver.url())

    # and rotates its secret
    endpoint.get_by_role("button", name="Rotate secret").click()
    expect(page.get_by_role("status")).to_contain_text("Secret rotated")
    rotated = endpoint.locator(".secret").inner_text()
    assert rotated.startswith("whsec_")
    assert rotated != first_secret.group(0)

    # Then: a message fails at the endpoint; the customer sees it and retries it now
    publish(tenant_a, room["id"])
    receiver.wait_for_requests(1, DEADLINE_MS / 1000)
    wait_until(lambda: _retrying(tenant_a, room["id"]), "the delivery to be retrying")
    page.get_by_role("button", name="Refresh").click()
    expect(page.get_by_role("button", name="Refresh")).to_be_enabled()
    endpoint.get_by_role("button", name="Retry now").focus()
    page.keyboard.press("Enter")  # keyboard-usable
    expect(page.get_by_role("status")).to_contain_text("retried")
    assert len(receiver.wait_for_requests(2, DEADLINE_MS / 1000)) == 2
    wait_until(lambda: _delivered(tenant_a, room["id"]), "the retried delivery to be delivered")

    # and the endpoint's metrics and charts, once the metrics hold both attempts
    wait_until(lambda: _attempts(tenant_a, room["id"]) == 2, "the metrics to count both attempts")
    page.get_by_role("button", name="Refresh").click()
    expect(page.get_by_role("button", name="Refresh")).to_be_enabled()  # the page is drawn again
    endpoint.get_by_text("Metrics", exact=True).click()
    expect(endpoint.locator(".metrics-totals")).to_contain_text("1 of 2 attempts succeeded")
    expect(endpoint.locator("figure.chart canvas")).to_have_count(5)
    assert errors == []


def _deliveries(tenant: ApiClient, room_id: str) -> list[dict[str, Any]]:
    subscriptions = tenant.get(f"/rooms/{room_id}/subscriptions").json()["subscriptions"]
    found: list[dict[str, Any]] = []
    for subscription in subscriptions:
        found += tenant.get(f"/rooms/{room_id}/subscriptions/{subscription['id']}/deliveries").json()[
            "deliveries"
        ]
    return found


def _attempts(tenant: ApiClient, room_id: str) -> int:
    (subscription,) = tenant.get(f"/rooms/{room_id}/subscriptions").json()["subscriptions"]
    answer = tenant.get(f"/rooms/{room_id}/subscriptions/{subscription['id']}/metrics").json()
    attempts: int = answer["summary"]["attempts"]
    return attempts


def _retrying(tenant: ApiClient, room_id: str) -> bool:
    return any(d["status"] == "retrying" for d in _deliveries(tenant, room_id))


def _delivered(tenant: ApiClient, room_id: str) -> bool:
    return any(d["status"] == "delivered" for d in _deliveries(tenant, room_id))


def test_the_portal_opens_in_an_iframe_on_an_allowed_origin_and_not_on_another(
    page: Page, tenant_a: ApiClient, embedding: Any
) -> None:
    # Given: two pages on loopback origins of their own framing the portal; the tenant lists one
    room = tenant_a.create_room()
    session = _portal(tenant_a, room["id"])
    listed_host, other_host = embedding(session["url"]), embedding(session["url"])
    _portal(tenant_a, room["id"], frameAncestors=[listed_host])

    # When / Then: framed by the listed origin, the portal loads
    page.goto(listed_host)
    framed = page.frame_locator("iframe[title=portal]")
    expect(framed.get_by_role("heading", name="Your endpoints")).to_be_visible()

    # and framed by another origin, the browser refuses to show it
    page.goto(other_host)
    page.wait_for_load_state("load")
    wait_until(lambda: _refused(page), "the browser to refuse the frame")


def _refused(page: Page) -> bool:
    frames = page.frames[1:]
    return len(frames) == 1 and (
        frames[0].url.startswith("chrome-error://") or frames[0].locator("#main").count() == 0
    )
