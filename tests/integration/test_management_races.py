"""Management checks against DynamoDB (moto server) under the worst interleaving of two requests:
both make their checks (reads) before either writes. A turnstile in front of the service's ports
holds each request's first write until the other request has arrived at its own, then lets the
writes through one after the other (as DynamoDB orders the writes to one item), so the race is
forced every run instead of hoped for.

Before the conditional writes (docs/decisions/0020-management-races.md), each of these failed:
the room ended with one subscription over its limit, two PATCHes closed a failover loop, and two
replays of one dead letter sent it twice. The last tests keep the room's count of subscriptions,
which the limit rests on, right: for rooms stored before it, through a room PATCH, a repeated delete.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

import boto3
import pytest

from management_api.dead_letters.service import DeadLettersService
from management_api.subscriptions.models import SubscriptionPatch
from management_api.subscriptions.service import SubscriptionsService
from roomcast.catalog.keys import SUBSCRIPTION_COUNT
from roomcast.catalog.model import Room, Subscription
from roomcast.catalog.ports import Catalog
from roomcast.catalog.store import CatalogTable
from roomcast.dead_letters.replays import Replayer
from roomcast.dead_letters.store import DeadLetterTable
from roomcast.log.delivery_log import DeliveryLog
from roomcast.messages.envelope import Envelope
from roomcast.messages.ports import Outgoing, Sender
from roomcast.messages.sender import EnvelopeSender, QueueAddresses
from roomcast.messages.store import MessageTable
from roomcast.outbox.queue import OutboxQueue
from roomcast.platform import limits
from roomcast.platform.clock import now_iso
from roomcast.platform.config import load_settings
from roomcast.platform.errors import RoomcastError
from roomcast.pull.queues import QueueAdmin
from roomcast.webhooks.urls import PushUrlPolicy
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import seed_copies
from tests.unit.services.management import dead_letter, subscription_request

pytestmark = pytest.mark.security  # the security regression suite: make test-security

TENANT = "acme"
PUSH_URL = "http://127.0.0.1:9/hook"  # loopback is allowed locally; nothing is sent in these tests
# Reads pass the turnstile; any other call of a port is a write.
_READS = ("get_", "list_", "all_", "count_", "page")


class Turnstile:
    """Holds each of ``parties`` threads at its first write until all have arrived, then lets the
    writes through one at a time. A party that never writes only delays the others by the timeout."""

    def __init__(self, parties: int, timeout_seconds: float = 10.0) -> None:
        self._arrived = threading.Barrier(parties, timeout=timeout_seconds)
        self._one_at_a_time = threading.Lock()
        self._passed = threading.local()

    def through[T](self, write: Callable[[], T]) -> T:
        if getattr(self._passed, "done", False):
            return write()
        self._passed.done = True
        with contextlib.suppress(threading.BrokenBarrierError):
            self._arrived.wait()
        with self._one_at_a_time:
            return write()


@dataclass
class Gated:
    """A port whose writes go through the turnstile."""

    target: Any
    turnstile: Turnstile

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.target, name)
        if name.startswith(_READS) or not callable(attribute):
            return attribute
        return lambda *args, **kwargs: self.turnstile.through(lambda: attribute(*args, **kwargs))


@dataclass
class Recorded:
    """A sender that keeps what it was given to send."""

    target: Any
    sent: list[Outgoing] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.target, name)
        if not name.endswith("send"):
            return attribute

        def recorded(outgoing: Iterable[Outgoing]) -> Any:
            batch = list(outgoing)
            self.sent.extend(batch)
            return attribute(batch)

        return recorded


@dataclass(frozen=True)
class Stores:
    """The management function's data access, as its dependencies module makes it."""

    catalog: CatalogTable
    queue_admin: QueueAdmin
    outbox: OutboxQueue
    dead_letters: DeadLetterTable
    messages: MessageTable
    sender: EnvelopeSender
    addresses: QueueAddresses
    log: DeliveryLog


@pytest.fixture
def stores(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> Stores:
    function_handler("ManagementFunction")  # the management function's environment: table, queues
    from management_api import dependencies as made

    return Stores(
        made.catalog(),
        made.queue_admin(),
        made.outbox(),
        DeadLetterTable(made.settings().table_name),
        made.messages(),
        made.sender(),
        made.addresses(),
        made.delivery_log(),
    )


def _subscriptions(stores: Stores, catalog: Any = None) -> SubscriptionsService:
    return SubscriptionsService(
        cast(Catalog, catalog or stores.catalog),
        stores.queue_admin,
        stores.outbox,
        PushUrlPolicy(allow_loopback=True),
    )


def _room(stores: Stores) -> Room:
    now = now_iso()
    room = Room("room_" + "a" * 32, TENANT, "races", None, 1000, 2.0, 5, (), now, now)
    stores.catalog.create_room(room)
    return room


def _push_subscription(stores: Stores, room: Room, **fields: object) -> Subscription:
    request = subscription_request(type="PUSH", pushUrl=PUSH_URL, **fields)
    return _subscriptions(stores).create(TENANT, room.id, request).subscription


def _race[T](*requests: Callable[[], T]) -> list[T | RoomcastError]:
    """Run the requests in threads at once; each one's answer or the API error it raised."""

    def answer(request: Callable[[], T]) -> T | RoomcastError:
        try:
            return request()
        except RoomcastError as error:
            return error

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(answer, requests))


def test_two_creates_at_the_last_free_place_of_a_room_store_only_one(stores: Stores) -> None:
    # Given: a room one subscription short of its limit, and two creates that both count it so
    room = _room(stores)
    first = _push_subscription(stores, room)
    seed_copies(stores.catalog, first, limits.MAX_SUBSCRIPTIONS_PER_ROOM - 2)
    racing = _subscriptions(stores, Gated(stores.catalog, Turnstile(2)))
    request = subscription_request(type="PUSH", pushUrl=PUSH_URL)

    # When
    answers = _race(*[lambda: racing.create(TENANT, room.id, request)] * 2)

    # Then: one is stored, the other refused as over the limit
    refused = [a for a in answers if isinstance(a, RoomcastError)]
    assert [(e.http_status, e.code) for e in refused] == [(409, "limit_exceeded")]
    assert stores.catalog.count_subscriptions(TENANT, room.id) == limits.MAX_SUBSCRIPTIONS_PER_ROOM


def test_two_patches_that_would_close_a_failover_loop_are_not_both_stored(stores: Stores) -> None:
    # Given: A and B without failovers; one PATCH makes B A's failover, the other A B's
    room = _room(stores)
    first, second = _push_subscription(stores, room), _push_subscription(stores, room)
    racing = _subscriptions(stores, Gated(stores.catalog, Turnstile(2)))

    def make_failover(subscription: Subscription, failover: Subscription) -> Subscription:
        patch = SubscriptionPatch.model_validate({"failoverSubscriptionId": failover.id})
        return racing.update(TENANT, room.id, subscription.id, patch)

    # When
    answers = _race(lambda: make_failover(first, second), lambda: make_failover(second, first))

    # Then: one change is stored, the other answered 409 (read again, try again), and no loop
    refused = [a for a in answers if isinstance(a, RoomcastError)]
    assert [e.http_status for e in refused] == [409]
    stored = {s.id: s.failover_subscription_id for s in stores.catalog.all_subscriptions(TENANT, room.id)}
    assert (stored[first.id], stored[second.id]) in {(second.id, None), (None, first.id)}


def test_two_replays_of_one_dead_letter_send_it_once(stores: Stores) -> None:
    # Given: a dead letter, and two replays of it that both find it before either sends
    room = _room(stores)
    subscription = _push_subscription(stores, room)
    letter = dead_letter(subscription, 1)
    stores.dead_letters.put(letter)
    sender = Recorded(Gated(stores.sender, Turnstile(2)))
    replayer = Replayer(
        stores.dead_letters, stores.messages, cast(Sender, sender), stores.addresses, stores.log
    )
    service = DeadLettersService(stores.catalog, stores.dead_letters, replayer)
    message_id = letter.envelope.message_id

    # When
    answers = _race(*[lambda: service.replay(TENANT, room.id, subscription.id, [message_id])] * 2)

    # Then: sent once; one answer says it replayed it, the other that it did not
    assert [o.envelope.message_id for o in sender.sent if isinstance(o.envelope, Envelope)] == [message_id]
    replayed = [a.replayed for a in answers if not isinstance(a, RoomcastError)]
    assert sorted(replayed) == [[], [message_id]]
    assert stores.dead_letters.get_many(TENANT, room.id, subscription.id, [message_id]) == []


def test_a_room_made_before_rooms_counted_is_counted_at_its_next_create(stores: Stores) -> None:
    # Given: a room with two subscriptions and no count (as rooms were stored before)
    room = _room(stores)
    _push_subscription(stores, room)
    _push_subscription(stores, room)
    boto3.client("dynamodb").update_item(
        TableName=load_settings().table_name,
        Key={"PK": {"S": f"TENANT#{TENANT}"}, "SK": {"S": f"ROOM#{room.id}"}},
        UpdateExpression=f"REMOVE {SUBSCRIPTION_COUNT}",
    )

    # When
    _push_subscription(stores, room)

    # Then: counted from what it holds
    assert stores.catalog.count_subscriptions(TENANT, room.id) == 3


def test_a_room_patch_keeps_the_count_and_a_delete_lowers_it_once(stores: Stores) -> None:
    # Given: a room with two subscriptions, renamed
    room = _room(stores)
    first = _push_subscription(stores, room)
    _push_subscription(stores, room)
    stores.catalog.replace_room(dataclasses.replace(room, name="renamed"))

    # When: one subscription is deleted twice
    stores.catalog.delete_subscription(TENANT, room.id, first.id)
    stores.catalog.delete_subscription(TENANT, room.id, first.id)

    # Then
    assert stores.catalog.get_room(TENANT, room.id).name == "renamed"
    assert stores.catalog.count_subscriptions(TENANT, room.id) == 1


def test_creates_racing_for_the_last_place_of_a_catalog_store_only_one(
    stores: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: a catalog one event type short of its (lowered) limit
    from management_api.event_types.models import EventTypeCreate
    from management_api.event_types.service import EventTypesService
    from roomcast.event_types.store import EventTypeTable

    monkeypatch.setattr(limits, "MAX_CATALOG_EVENT_TYPES", 2)
    catalog = EventTypesService(EventTypeTable.sharing(stores.catalog))
    catalog.create(TENANT, EventTypeCreate(name="order.created"))

    # When: four creates of other names at once
    answers = _race(
        *[lambda n=n: catalog.create(TENANT, EventTypeCreate(name=f"order.{n}")) for n in range(4)]
    )

    # Then: one is stored, the others refused as over the limit
    refused = [a for a in answers if isinstance(a, RoomcastError)]
    assert sorted((e.http_status, e.code) for e in refused) == [(409, "limit_exceeded")] * 3
    names = [t.name for t in catalog.page(TENANT, 10, None, archived_too=True).items]
    assert len(names) == 2
