"""Security regression: list cursors (issue 22, defect 2), over real HTTP on the local stack.

A cursor was base64 JSON of the DynamoDB key: it showed the tenant and the table layout, and a
hand-made, edited or moved one answered 200. Now each is sealed for one tenant and one list with its
filters (docs/decisions/0027-sealed-list-cursors.md); anything else is 400 ``invalid_cursor``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import pytest

from roomcast.catalog.store import CatalogTable
from roomcast.dead_letters.store import DeadLetterTable
from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import publish
from tests.unit.services.management import dead_letter

pytestmark = pytest.mark.security  # the security regression suite: make test-security

BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@dataclass(frozen=True)
class Listing:
    path: str
    key: str  # the answer's list
    params: dict[str, Any]

    def first_cursor(self, client: ApiClient) -> str:
        response = client.get(self.path, params={**self.params, "limit": 1})
        assert response.status_code == 200, response.text
        cursor: str | None = response.json()["nextCursor"]
        assert cursor, f"{self.path} {self.params}: one page only"
        return cursor

    def read(self, client: ApiClient, cursor: str) -> Any:
        return client.get(self.path, params={**self.params, "limit": 1, "cursor": cursor})


def refused(response: Any) -> None:
    body = assert_error(response, 400, "cursor")
    assert body["error"]["code"] == "invalid_cursor"


def old_style(key: dict[str, str]) -> str:
    """A cursor as roomcast made them before issue 22: the DynamoDB key, base64 JSON."""
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


@pytest.fixture
def lists(empty_stack: LocalStack, tenant_a: ApiClient) -> dict[str, Listing]:
    """Every list of tenant-a, each of two pages or more at one item a page."""
    rooms = [tenant_a.create_room(name=f"r{n}") for n in range(3)]
    room = rooms[0]["id"]
    subscriptions = [tenant_a.create_subscription(room) for _ in range(3)]
    subscription = subscriptions[0]["id"]
    for n in range(3):
        publish(tenant_a, room, eventType="order.created" if n % 2 == 0 else "order.paid")
        assert tenant_a.post("/api-keys", json={"name": f"k{n}"}).status_code == 201
    # Dead letters are written by the store, as the push and pull functions do.
    table, client = empty_stack.output("TableName"), empty_stack.client("dynamodb")
    stored = CatalogTable(table, client=client).get_subscription("tenant-a", room, subscription)
    for n in range(3):
        DeadLetterTable(table, client=client).put(dead_letter(stored, n))
    messages = f"/rooms/{room}/messages"
    of_subscription = f"/rooms/{room}/subscriptions/{subscription}"
    return {
        "rooms": Listing("/rooms", "rooms", {}),
        "api keys": Listing("/api-keys", "apiKeys", {}),
        "subscriptions": Listing(f"/rooms/{room}/subscriptions", "subscriptions", {}),
        "messages": Listing(messages, "messages", {}),
        "messages of a type": Listing(messages, "messages", {"eventType": "order.created"}),
        "deliveries": Listing(f"{of_subscription}/deliveries", "deliveries", {}),
        "pending deliveries": Listing(f"{of_subscription}/deliveries", "deliveries", {"status": "pending"}),
        "dead letters": Listing(f"{of_subscription}/dead-letters", "deadLetters", {}),
        "another room's subscriptions": Listing(
            f"/rooms/{rooms[1]['id']}/subscriptions", "subscriptions", {}
        ),
    }


def test_a_cursor_is_taken_only_by_the_list_that_handed_it_out_for_the_same_tenant(
    lists: dict[str, Listing], tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given: tenant-b has lists of its own
    lists.pop("another room's subscriptions")  # it has one page: it hands out no cursor
    for n in range(2):
        tenant_b.create_room(name=f"b{n}")
    cursors = {name: listing.first_cursor(tenant_a) for name, listing in lists.items()}

    for name, cursor in cursors.items():
        # Then: what it carries names no tenant and nothing of the table
        assert cursor.startswith("cur_")
        for leak in ("tenant-a", "TENANT", "PK", "SK", "GSI1", "KEY#", "ROOM#"):
            assert leak not in _decoded_fields(cursor), (name, leak)
        # its own list reads on with it, with any page size
        response = tenant_a.get(lists[name].path, params={**lists[name].params, "limit": 2, "cursor": cursor})
        assert response.status_code == 200, (name, response.text)
        # and every other list, and the same list for tenant-b, refuse it
        for other, listing in lists.items():
            if other != name:
                refused(listing.read(tenant_a, cursor))
        refused(lists[name].read(tenant_b, cursor))


def test_a_moved_subscriptions_cursor_is_refused_by_another_rooms_list(
    lists: dict[str, Listing], tenant_a: ApiClient
) -> None:
    # Given: the other room has two subscriptions (one page at the default size)
    other = lists["another room's subscriptions"]
    room_id = other.path.split("/")[2]
    for _ in range(2):
        tenant_a.create_subscription(room_id)
    cursor = lists["subscriptions"].first_cursor(tenant_a)

    # When / Then
    refused(other.read(tenant_a, cursor))


def test_the_cursors_of_issue_22_are_refused(lists: dict[str, Listing], tenant_a: ApiClient) -> None:
    # Given: the hand-made and edited cursors of the report, in the old format and in the new
    key_id = tenant_a.get("/api-keys").json()["apiKeys"][0]["keyId"]
    messages = lists["messages"]
    message = tenant_a.get(messages.path, params={"limit": 1}).json()["messages"][0]
    room_id = messages.path.split("/")[2]
    index_key = {
        "PK": f"TENANT#tenant-a#MSG#{message['messageId']}",
        "SK": "MSG",
        "GSI1PK": f"TENANT#tenant-a#ROOM#{room_id}#MSGS",
        "GSI1SK": f"1999-01-01T00:00:00.000Z#{message['messageId']}",
    }
    sealed = messages.first_cursor(tenant_a)

    # When / Then: a /rooms cursor pointing at the tenant's API keys
    refused(lists["rooms"].read(tenant_a, old_style({"PK": "TENANT#tenant-a", "SK": f"KEY#{key_id}"})))
    # a messages cursor with its index sort key changed
    refused(messages.read(tenant_a, old_style(index_key)))
    refused(messages.read(tenant_a, _with_position(sealed, [index_key["GSI1SK"]])))
    # a messages cursor on the subscription's deliveries
    refused(lists["deliveries"].read(tenant_a, sealed))
    # and an empty one
    refused(lists["rooms"].read(tenant_a, ""))


def test_every_one_character_edit_of_a_cursor_is_refused(
    lists: dict[str, Listing], tenant_a: ApiClient
) -> None:
    # Given
    messages = lists["messages"]
    cursor = messages.first_cursor(tenant_a)

    # When / Then: each character replaced by another of the cursor's alphabet, then cut short
    for index, original in enumerate(cursor):
        replacement = BASE64URL[(BASE64URL.find(original) + 1) % len(BASE64URL)]
        refused(messages.read(tenant_a, cursor[:index] + replacement + cursor[index + 1 :]))
    refused(messages.read(tenant_a, cursor[:-1]))
    refused(messages.read(tenant_a, cursor + "A"))


def _decoded_fields(cursor: str) -> str:
    encoded = cursor.removeprefix("cur_").partition(".")[0]
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()


def _with_position(cursor: str, position: list[str]) -> str:
    text = json.dumps(position, separators=(",", ":")).encode()
    return "cur_" + base64.urlsafe_b64encode(text).decode().rstrip("=") + "." + cursor.partition(".")[2]
