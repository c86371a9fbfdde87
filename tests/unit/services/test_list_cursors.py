"""Each management list seals its next position into a cursor bound to the tenant, the list, its
path ids and its filters, and opens a cursor before its service (or any store) is called.
The list routes are called as powertools calls them, over the services and in-memory fakes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

import pytest

from management_api.api_keys.routes import list_api_keys
from management_api.api_keys.service import ApiKeysService
from management_api.dead_letters.routes import list_dead_letters
from management_api.messages.routes import list_deliveries, list_messages
from management_api.messages.service import MessagesService
from management_api.rooms.routes import list_rooms
from management_api.subscriptions.routes import list_subscriptions
from roomcast.access import Caller
from roomcast.api import CallerAccess
from roomcast.api.cursors import ListCursors
from roomcast.catalog.model import Room, Subscription, SubscriptionType
from roomcast.keys.store import ApiKeyEntry
from roomcast.messages.model import Delivery, DeliveryStatus, Message
from roomcast.platform.errors import InvalidRequest
from roomcast.platform.pages import Page, Position
from tests.unit.services.management import OTHER_TENANT, TENANT, Management, dead_letter

ADMIN = CallerAccess(Caller(TENANT), None)  # an admin key: every room

pytestmark = pytest.mark.security  # the security regression suite: make test-security

# A list call: (tenant, cursor) -> the answer's nextCursor.
ListCall = Callable[[str, str | None], str | None]


@dataclass
class FakeApiKeys:
    entries: list[ApiKeyEntry] = field(default_factory=list)

    def page(self, tenant_id: str, limit: int, start: Position | None) -> Page[ApiKeyEntry]:
        first = int(start[0]) if start else 0
        found = [e for e in self.entries if e.tenant_id == tenant_id]
        end = first + limit
        return Page(found[first:end], (str(end),) if end < len(found) else None)


@dataclass
class Lists:
    """Lists of two pages or more (one item a page) of one tenant, and a few items of another,
    behind the list routes."""

    management: Management = field(default_factory=Management)
    keys: FakeApiKeys = field(default_factory=FakeApiKeys)
    key_reads: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rooms: list[Room] = [self.management.room() for _ in range(3)]
        self.room = self.rooms[0]
        self.subscriptions: list[Subscription] = [self.management.subscription(self.room) for _ in range(3)]
        self.subscription = self.subscriptions[0]
        for number in range(3):
            self._message(number)
            self.management.dead_letter_store.put(dead_letter(self.subscription, number))
        for tenant in (TENANT, OTHER_TENANT):
            self.management.room(tenant)
            self.keys.entries += [
                ApiKeyEntry(tenant, f"key_{n:016x}", "", "2026-11-22T10:00:00.000Z") for n in range(3)
            ]
        self.cursors = ListCursors(self._key)

    def _key(self) -> bytes:
        self.key_reads.append(1)
        return b"k" * 32

    def _message(self, number: int) -> None:
        message = Message(
            id=f"msg_{number:032x}",
            tenant_id=TENANT,
            room_id=self.room.id,
            event_type="order.created" if number % 2 == 0 else "order.paid",
            event_version="1",
            correlation_id=f"order-{number}",
            payload={"n": number},
            published_at=f"2026-11-22T10:00:0{number}.000Z",
            published_at_ms=1_795_435_200_000 + number * 1000,
            expires_at_ms=None,
            destinations=(self.subscription.id,),
        )
        record = Delivery(
            message.id, TENANT, self.subscription.id, SubscriptionType.PULL, DeliveryStatus.PENDING, 0
        )
        self.management.messages.put_message(message, [record])

    @property
    def messages_service(self) -> MessagesService:
        return MessagesService(self.management.messages, self.management.catalog, self.management.messages)

    def calls(self) -> dict[str, ListCall]:
        """Every list route, one item a page, each answering its nextCursor."""
        m, room, sub = self.management, self.room.id, self.subscription.id
        keys = ApiKeysService(cast(Any, self.keys), cast(Any, m.catalog))
        c = self.cursors
        return {
            "rooms": lambda t, cursor: list_rooms(m.rooms, c.of(t), ADMIN, 1, cursor).nextCursor,
            "api-keys": lambda t, cursor: list_api_keys("", keys, c.of(t), 1, cursor).nextCursor,
            "subscriptions": lambda t, cursor: (
                list_subscriptions(room, m.subscriptions, c.of(t), ADMIN, 1, cursor).nextCursor
            ),
            "messages": lambda t, cursor: (
                list_messages(room, self.messages_service, c.of(t), 1, cursor).nextCursor
            ),
            "messages of a type": lambda t, cursor: (
                list_messages(
                    room, self.messages_service, c.of(t), 1, cursor, eventType="order.created"
                ).nextCursor
            ),
            "deliveries": lambda t, cursor: (
                list_deliveries(room, sub, self.messages_service, c.of(t), None, 1, cursor).nextCursor
            ),
            "pending deliveries": lambda t, cursor: (
                list_deliveries(room, sub, self.messages_service, c.of(t), "pending", 1, cursor).nextCursor
            ),
            "dead letters": lambda t, cursor: (
                list_dead_letters(room, sub, m.dead_letters, c.of(t), 1, cursor).nextCursor
            ),
        }


def refused(call: ListCall, tenant: str, cursor: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        call(tenant, cursor)
    assert (raised.value.http_status, raised.value.code) == (400, "invalid_cursor")


LIST_NAMES = list(Lists().calls())


@pytest.mark.parametrize("name", LIST_NAMES)
def test_a_list_reads_on_with_its_own_cursor(name: str) -> None:
    # Given
    call = Lists().calls()[name]

    # When
    first = call(TENANT, None)
    second = call(TENANT, first)

    # Then: an opaque cursor, and the next page another (or none: the last)
    assert first is not None
    assert first.startswith("cur_")
    assert second != first


@pytest.mark.parametrize("name", LIST_NAMES)
def test_a_cursor_is_refused_by_every_other_list_and_by_another_tenant(name: str) -> None:
    # Given
    lists = Lists()
    calls = lists.calls()
    cursor = calls[name](TENANT, None)
    assert cursor is not None

    # When / Then
    for other, call in calls.items():
        if other != name:
            refused(call, TENANT, cursor)
    refused(calls[name], OTHER_TENANT, cursor)


def test_a_cursor_of_one_room_or_subscription_is_refused_by_anothers() -> None:
    # Given
    lists = Lists()
    m, c = lists.management, lists.cursors
    other_room = lists.rooms[1]
    for _ in range(2):
        m.subscription(other_room)
    subscriptions = list_subscriptions(
        lists.room.id, m.subscriptions, c.of(TENANT), ADMIN, 1, None
    ).nextCursor
    letters = list_dead_letters(lists.room.id, lists.subscription.id, m.dead_letters, c.of(TENANT), 1, None)
    assert subscriptions is not None
    assert letters.nextCursor is not None

    # When / Then
    with pytest.raises(InvalidRequest, match="cursor"):
        list_subscriptions(other_room.id, m.subscriptions, c.of(TENANT), ADMIN, 1, subscriptions)
    with pytest.raises(InvalidRequest, match="cursor"):
        list_dead_letters(
            lists.room.id, lists.subscriptions[1].id, m.dead_letters, c.of(TENANT), 1, letters.nextCursor
        )


def test_a_messages_cursor_is_bound_to_the_time_window_but_not_to_the_page_size() -> None:
    # Given
    lists = Lists()
    service, c, room = lists.messages_service, lists.cursors, lists.room.id
    since = "2026-11-22T10:00:00Z"
    cursor = list_messages(
        room, service, c.of(TENANT), 1, None, since=datetime.fromisoformat(since)
    ).nextCursor
    assert cursor is not None

    # When / Then: the same window with another limit reads on; another window or none is refused
    assert list_messages(room, service, c.of(TENANT), 2, cursor, since=datetime.fromisoformat(since)).messages
    others: list[dict[str, Any]] = [
        {},
        {"since": datetime.fromisoformat("2026-11-22T09:00:00Z")},
        {"until": datetime.fromisoformat("2026-11-23T00:00:00Z")},
    ]
    for other in others:
        with pytest.raises(InvalidRequest, match="cursor"):
            list_messages(room, service, c.of(TENANT), 1, cursor, **other)


class Untouchable:
    """A service that fails the test when anything of it is used."""

    def __getattr__(self, name: str) -> Any:
        def called(*args: object) -> None:
            raise AssertionError(f"service.{name} called before the cursor was verified")

        return called


FORGED = "cur_WyJ4Il0." + "A" * 43
ROOM_ID, SUBSCRIPTION_ID = "room_" + "1" * 32, "sub_" + "2" * 32
ROUTES_WITH_A_FORGED_CURSOR: dict[str, Callable[[Any, ListCursors], object]] = {
    "rooms": lambda s, c: list_rooms(s, c.of(TENANT), ADMIN, 1, FORGED),
    "api-keys": lambda s, c: list_api_keys("", s, c.of(TENANT), 1, FORGED),
    "subscriptions": lambda s, c: list_subscriptions(ROOM_ID, s, c.of(TENANT), ADMIN, 1, FORGED),
    "messages": lambda s, c: list_messages(ROOM_ID, s, c.of(TENANT), 1, FORGED),
    "deliveries": lambda s, c: list_deliveries(ROOM_ID, SUBSCRIPTION_ID, s, c.of(TENANT), None, 1, FORGED),
    "dead letters": lambda s, c: list_dead_letters(ROOM_ID, SUBSCRIPTION_ID, s, c.of(TENANT), 1, FORGED),
}


@pytest.mark.parametrize("name", ROUTES_WITH_A_FORGED_CURSOR)
def test_a_forged_cursor_is_refused_before_the_service_is_called(name: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        ROUTES_WITH_A_FORGED_CURSOR[name](Untouchable(), Lists().cursors)
    assert (raised.value.http_status, raised.value.code) == (400, "invalid_cursor")


def test_a_list_of_one_page_reads_no_key() -> None:
    # Given
    lists = Lists()

    # When
    answer = list_rooms(lists.management.rooms, lists.cursors.of(OTHER_TENANT), ADMIN, 10, None)

    # Then
    assert len(answer.rooms) == 1
    assert answer.nextCursor is None
    assert lists.key_reads == []
