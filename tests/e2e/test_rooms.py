"""Rooms over HTTP: create, read, list, update, delete."""

from __future__ import annotations

from tests.e2e.conftest import ApiClient, assert_error


def test_create_room_answers_201_with_id_and_documented_defaults(tenant_a: ApiClient) -> None:
    # When
    response = tenant_a.post("/rooms", {"name": "orders"})

    # Then
    assert response.status_code == 201
    room = response.json()
    assert room["id"].startswith("room_")
    assert room["name"] == "orders"
    assert room["messageExpirationMs"] is None
    assert (room["deliveryDelayMs"], room["deliveryDelayMultiplier"], room["deliveryAttempts"]) == (
        1000,
        2.0,
        5,
    )
    assert room["eventTypes"] == []


def test_created_room_reads_back_with_all_fields(tenant_a: ApiClient) -> None:
    # Given
    fields = {
        "name": "billing",
        "messageExpirationMs": 3_600_000,
        "deliveryDelayMs": 250,
        "deliveryDelayMultiplier": 1.5,
        "deliveryAttempts": 0,
        "eventTypes": [{"name": "invoice.paid", "versions": ["1", "2.1"]}, {"name": "invoice.void"}],
    }
    created = tenant_a.create_room(**fields)

    # When
    response = tenant_a.get(f"/rooms/{created['id']}")

    # Then
    assert response.status_code == 200
    room = response.json()
    assert room == created
    assert room["eventTypes"] == [
        {"name": "invoice.paid", "versions": ["1", "2.1"]},
        {"name": "invoice.void", "versions": []},
    ]
    assert room["deliveryAttempts"] == 0


def test_zero_expiration_means_never(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room(messageExpirationMs=0)
    assert room["messageExpirationMs"] is None


def test_list_rooms_pages_with_a_cursor(tenant_a: ApiClient) -> None:
    # Given
    created = {tenant_a.create_room(name=f"room {n}")["id"] for n in range(3)}

    # When
    first = tenant_a.get("/rooms?limit=2").json()
    second = tenant_a.get(f"/rooms?limit=2&cursor={first['nextCursor']}").json()

    # Then
    assert len(first["rooms"]) == 2
    assert first["nextCursor"]
    assert len(second["rooms"]) == 1
    assert second["nextCursor"] is None
    assert {r["id"] for r in first["rooms"] + second["rooms"]} == created


def test_patch_changes_only_the_given_fields(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room(messageExpirationMs=60_000, deliveryAttempts=3)

    # When
    response = tenant_a.patch(f"/rooms/{room['id']}", {"deliveryDelayMs": 5000, "messageExpirationMs": None})

    # Then
    assert response.status_code == 200
    updated = response.json()
    assert updated["deliveryDelayMs"] == 5000
    assert updated["messageExpirationMs"] is None
    assert updated["deliveryAttempts"] == 3
    assert updated["name"] == room["name"]
    assert updated["updatedAt"] >= room["updatedAt"]
    assert tenant_a.get(f"/rooms/{room['id']}").json() == updated


def test_delete_room_answers_202_with_a_job_and_once_it_finished_the_room_is_gone(
    tenant_a: ApiClient,
) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    response = tenant_a.delete(f"/rooms/{room['id']}")
    again = tenant_a.delete(f"/rooms/{room['id']}")
    job = tenant_a.finished_job(response)

    # Then: a second deletion while the first runs answers the same job (or 404 once it is gone)
    assert (job["kind"], job["state"], job["roomId"]) == ("delete-room", "succeeded", room["id"])
    assert again.json()["id"] == job["id"] if again.status_code == 202 else again.status_code == 404
    assert_error(tenant_a.get(f"/rooms/{room['id']}"), 404, room["id"])
    assert tenant_a.get("/rooms").json()["rooms"] == []


def test_deleting_a_room_deletes_its_subscriptions(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])

    # When
    job = tenant_a.finished_job(tenant_a.delete(f"/rooms/{room['id']}"))

    # Then: a new room does not inherit anything, and the old subscription is unreachable
    assert job["counts"]["subscriptionsDeleted"] == 1
    assert_error(tenant_a.get(f"/rooms/{room['id']}/subscriptions/{subscription['id']}"), 404)
