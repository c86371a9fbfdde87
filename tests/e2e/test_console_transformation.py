"""The console's Transformation panel (a PUSH subscription's screen) in a real headless browser
against the local stack: a renaming transformation typed in the editor is dry-run on a sample, then
saved as version 1; a source that does not compile is refused with the API's problem beside the
editor, and nothing changes. The browser and the signed-in tab are tests/e2e/test_console.py's."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.e2e.conftest import ApiClient
from tests.e2e.test_console import Console, browser, console, signed_in
from tests.e2e.webhook_server import WebhookServers, always, webhook_servers

__all__ = ["browser", "console", "signed_in", "webhook_servers"]

STARTER = "function handler(webhook) {\n  return webhook;\n}"
RENAME = (
    "function handler(webhook) {\n  webhook.payload = {id: webhook.payload.orderId};\n  return webhook;\n}"
)
BROKEN = (
    "function handler(webhook) {\n  webhook.payload = {id: webhook.payload.orderId;\n  return webhook;\n}"
)


def test_a_transformation_is_dry_run_saved_and_a_broken_one_refused_from_the_subscription_page(
    signed_in: Console, tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a PUSH subscription to a receiver on loopback, without a transformation, on its screen
    receiver = webhook_servers(always())
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=receiver.url())
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    page = signed_in.page
    page.goto(f"{signed_in.url}#{path}")
    panel = page.get_by_role("region", name="Transformation")
    expect(panel.locator("dd").first).to_have_text("none: deliveries go as published")
    editor = panel.get_by_label("Source (JavaScript)")
    expect(editor).to_have_value(STARTER)
    expect(panel.get_by_label("Sample event type")).to_have_value("order.created")
    expect(panel.get_by_role("button", name="Roll back")).to_be_hidden()

    # When: a renaming transformation is typed and dry-run on a sample
    editor.fill(RENAME)
    panel.get_by_label("Sample payload (JSON)").fill('{"orderId": 7}')
    panel.get_by_role("button", name="Dry run").click()

    # Then: the payload it makes, pretty-printed; nothing saved, nothing sent
    output = panel.locator("#transformation-output")
    expect(output).to_have_text('{\n  "id": 7\n}')
    assert json.loads(output.inner_text()) == {"id": 7}
    expect(page.get_by_role("status")).to_have_text("Dry run: transformed.")
    expect(panel).to_contain_text("Transformed by the editor's text: POST " + receiver.url())
    assert tenant_a.get(path).json()["transformation"] is None

    # When: it is saved
    panel.get_by_role("button", name="Save").click()

    # Then: it is version 1, the subscription's transformation
    expect(page.get_by_role("status")).to_contain_text("Transformation version 1 saved")
    expect(panel.locator("dd").first).to_contain_text("version 1, saved")
    expect(panel).to_contain_text("Saved as version 1.")
    saved = tenant_a.get(path).json()
    assert (saved["transformation"], saved["transformationVersion"]) == (RENAME, 1)
    expect(panel.get_by_role("button", name="Roll back")).to_be_hidden()  # no previous version yet

    # When: a source that does not compile is saved
    editor.fill(BROKEN)
    panel.get_by_role("button", name="Save").click()

    # Then: the API's problem beside the editor (and its code in the alert); version 1 stays
    expect(panel).to_contain_text("Not saved: does not compile: SyntaxError: Unexpected token ';'")
    expect(page.get_by_role("alert")).to_contain_text("invalid_transformation")
    expect(editor).to_have_value(BROKEN)  # what was typed stays, refreshes or not
    expect(panel.locator("dd").first).to_contain_text("version 1, saved")
    assert tenant_a.get(path).json()["transformationVersion"] == 1
    assert receiver.requests == []
    assert [error for error in signed_in.errors if "422" not in error] == []


def test_the_transformation_panel_rolls_back_removes_and_checks_its_sample_before_asking(
    signed_in: Console, tenant_a: ApiClient
) -> None:
    # Given: a PUSH subscription whose transformation has two versions, and a PULL one
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl="http://127.0.0.1:9/hook")
    pull = tenant_a.create_subscription(room["id"])
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    for source in (STARTER, RENAME):
        changed = tenant_a.patch(path, {"transformation": source})
        assert changed.status_code == 200, changed.text
    page = signed_in.page
    page.goto(f"{signed_in.url}#{path}")
    panel = page.get_by_role("region", name="Transformation")
    editor = panel.get_by_label("Source (JavaScript)")
    expect(editor).to_have_value(RENAME)
    expect(panel.locator("dd").nth(1)).to_contain_text("version 1, saved")

    # When: a sample that is not JSON is dry-run
    panel.get_by_label("Sample payload (JSON)").fill('{"orderId": ')
    before = len(signed_in.requested)
    panel.get_by_role("button", name="Dry run").click()

    # Then: the panel says so, and the API was not asked
    expect(panel).to_contain_text("Not run: The sample payload is not JSON")
    assert [url for url in signed_in.requested[before:] if "/transformation" in url] == []

    # When: rolled back
    panel.get_by_role("button", name="Roll back").click()

    # Then: version 1 is current again, in the editor too, and version 2 is kept
    expect(page.get_by_role("status")).to_have_text("Rolled back: version 1 is current.")
    expect(editor).to_have_value(STARTER)
    expect(panel.locator("dd").first).to_contain_text("version 1, saved")
    expect(panel.locator("dd").nth(1)).to_contain_text("version 2, saved")
    assert tenant_a.get(path).json()["transformationVersion"] == 1

    # When: removed
    panel.get_by_role("button", name="Remove").click()

    # Then: none is current; the removed one is kept for a rollback
    expect(panel.locator("dd").first).to_have_text("none: deliveries go as published")
    expect(panel.locator("dd").nth(1)).to_contain_text("version 1, saved")
    expect(panel.get_by_role("button", name="Remove")).to_be_hidden()
    expect(panel.get_by_role("button", name="Roll back")).to_be_visible()
    assert tenant_a.get(path).json()["transformation"] is None
    # and a PULL subscription's screen has no such panel
    page.goto(f"{signed_in.url}#/rooms/{room['id']}/subscriptions/{pull['id']}")
    expect(page.get_by_role("heading", name=f"Subscription {pull['id']}")).to_be_visible()
    expect(page.get_by_role("region", name="Transformation")).to_have_count(0)
    assert signed_in.errors == []
