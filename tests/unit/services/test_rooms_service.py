"""RoomsService with in-memory fakes: the rules of creating, changing and deleting rooms."""

from __future__ import annotations

import pytest

from management_api.rooms.models import RoomPatch
from roomcast.catalog.model import Subscription
from roomcast.outbox.tasks import ROOM_DELETED, Sweep
from roomcast.platform import limits
from roomcast.platform.errors import InvalidRequest, NotFound
from tests.unit.services.management import OTHER_TENANT, SETTLE_SECONDS, TENANT, Management


def test_a_room_gets_an_id_and_the_documented_defaults() -> None:
    # Given
    management = Management()

    # When
    room = management.room()

    # Then
    assert room.id.startswith("room_")
    assert (room.delivery_delay_ms, room.delivery_delay_multiplier, room.delivery_attempts) == (
        limits.DEFAULT_DELIVERY_DELAY_MS,
        limits.DEFAULT_DELIVERY_DELAY_MULTIPLIER,
        limits.DEFAULT_DELIVERY_ATTEMPTS,
    )
    assert room.message_expiration_ms is None
    assert management.rooms.get(TENANT, room.id) == room


def test_zero_expiration_means_never() -> None:
    # When
    room = Management().room(messageExpirationMs=0)

    # Then
    assert room.message_expiration_ms is None


def test_a_patch_changes_only_the_fields_it_names() -> None:
    # Given
    management = Management()
    room = management.room(messageExpirationMs=60_000, deliveryAttempts=3)

    # When
    updated = management.rooms.update(
        TENANT, room.id, RoomPatch.model_validate_json('{"deliveryAttempts": 8}')
    )

    # Then
    assert updated.delivery_attempts == 8
    assert updated.message_expiration_ms == 60_000
    assert updated.name == room.name


def test_a_null_expiration_in_a_patch_means_never() -> None:
    # Given
    management = Management()
    room = management.room(messageExpirationMs=60_000)

    # When
    updated = management.rooms.update(
        TENANT, room.id, RoomPatch.model_validate_json('{"messageExpirationMs": null}')
    )

    # Then
    assert updated.message_expiration_ms is None


def test_an_empty_patch_changes_nothing() -> None:
    # Given
    management = Management()
    room = management.room()

    # When
    updated = management.rooms.update(TENANT, room.id, RoomPatch.model_validate_json("{}"))

    # Then
    assert updated == room


def test_deleting_a_room_deletes_its_subscriptions_and_their_queues() -> None:
    # Given
    management = Management()
    room = management.room()
    management.subscription(room)
    management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")

    # When
    job = management.delete_room(room)

    # Then
    assert (job.state.value, job.counts) == ("succeeded", {"examined": 2, "subscriptionsDeleted": 2})
    assert management.catalog.rooms == {}
    assert management.catalog.subscriptions == {}
    assert management.queues.queues == {}


def test_deleting_a_room_sweeps_what_its_subscriptions_owe_late_first_then_at_once() -> None:
    # Given
    management = Management()
    room = management.room()
    pull = management.subscription(room)
    push = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")

    # When
    management.delete_room(room)

    # Then: the same sweep twice, sent after the settle time (before anything is deleted) and at once
    (late, late_delay), (now, now_delay) = [
        (t, d) for t, d in management.outbox_tasks() if isinstance(t, Sweep)
    ]
    assert late == now
    assert isinstance(now, Sweep)
    assert (late_delay, now_delay) == (SETTLE_SECONDS, 0)
    assert sorted(now.subscriptions) == sorted([(pull.id, pull.type), (push.id, push.type)])
    assert now.reason == ROOM_DELETED


def test_another_tenants_room_is_not_found() -> None:
    # Given
    management = Management()
    room = management.room()

    # Then
    with pytest.raises(NotFound):
        management.rooms.get(OTHER_TENANT, room.id)
    with pytest.raises(NotFound):
        management.jobs.delete_room(OTHER_TENANT, room.id)
    assert management.rooms.get(TENANT, room.id) == room


def test_an_operations_room_is_another_existing_room_of_the_same_tenant() -> None:
    # Given
    management = Management()
    operations = management.room(name="operations")
    foreign = management.room(OTHER_TENANT, name="theirs")
    room = management.room(operationsRoomId=operations.id)

    # When
    with pytest.raises(NotFound):
        management.rooms.update(TENANT, room.id, RoomPatch.model_validate({"operationsRoomId": foreign.id}))
    with pytest.raises(InvalidRequest) as itself:
        management.rooms.update(TENANT, room.id, RoomPatch.model_validate({"operationsRoomId": room.id}))
    cleared = management.rooms.update(TENANT, room.id, RoomPatch.model_validate({"operationsRoomId": None}))

    # Then
    assert room.operations_room_id == operations.id
    assert itself.value.code == "invalid_operations_room"
    assert cleared.operations_room_id is None


def test_a_subscription_created_while_its_room_is_being_deleted_is_refused_not_left_behind() -> None:
    # Given: a room whose deletion lists its subscriptions while a create arrives
    management = Management()
    room = management.room()
    management.subscription(room)
    catalog = management.catalog
    listed = catalog.all_subscriptions
    refused: list[Exception] = []

    def list_while_a_create_arrives(tenant_id: str, room_id: str) -> list[Subscription]:
        catalog.all_subscriptions = listed  # type: ignore[method-assign]
        found = listed(tenant_id, room_id)
        try:
            management.subscription(room)
        except NotFound as error:
            refused.append(error)
        return found

    catalog.all_subscriptions = list_while_a_create_arrives  # type: ignore[method-assign]

    # When
    management.delete_room(room)

    # Then: the create was refused (the room is going), and nothing is left of the room
    assert [type(e) for e in refused] == [NotFound]
    assert catalog.rooms == {}
    assert catalog.subscriptions == {}
    assert management.queues.queues == {}


def test_a_room_with_more_subscriptions_than_a_step_takes_is_deleted_over_several_steps() -> None:
    # Given: 12 subscriptions, a step removes 10
    management = Management()
    room = management.room()
    for _ in range(12):
        management.subscription(room)

    # When
    job = management.delete_room(room)

    # Then
    assert (job.steps, job.counts["subscriptionsDeleted"]) == (2, 12)
    assert management.catalog.rooms == {}
    assert management.catalog.subscriptions == {}
