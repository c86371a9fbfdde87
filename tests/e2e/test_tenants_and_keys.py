"""API keys and tenant isolation: a tenant sees and changes only its own rooms and subscriptions."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ApiClient, assert_error


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({}, 401, "Unauthorized"),
        ({"Authorization": ""}, 401, "Unauthorized"),
        ({"Authorization": "Bearer rc_thisKeyWasNeverIssued000000000000"}, 403, "Forbidden"),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, 403, "Forbidden"),
        ({"Authorization": "Bearer " + "x" * 5000}, 403, "Forbidden"),
    ],
)
def test_requests_without_a_valid_key_are_refused(
    anonymous: ApiClient, tenant_a: ApiClient, headers: dict[str, str], status: int, message: str
) -> None:
    # Given
    tenant_a.create_room()

    # When
    response = anonymous.get("/rooms", headers=headers)
    create = anonymous.post("/rooms", {"name": "sneaky"}, headers=headers)

    # Then
    assert response.status_code == status
    assert response.json() == {"message": message}
    assert create.status_code == status
    assert len(tenant_a.get("/rooms").json()["rooms"]) == 1


def test_openapi_document_and_swagger_ui_need_no_key(anonymous: ApiClient) -> None:
    # When
    document = anonymous.get("/openapi.json")
    ui = anonymous.get("/docs")

    # Then
    assert document.status_code == 200
    spec = document.json()
    assert spec["openapi"].startswith("3.")
    assert {
        "/rooms",
        "/rooms/{roomId}",
        "/rooms/{roomId}/subscriptions",
        "/rooms/{roomId}/messages",
        "/rooms/{roomId}/messages/{messageId}",
        "/rooms/{roomId}/subscriptions/{subscriptionId}/pull",
        "/rooms/{roomId}/subscriptions/{subscriptionId}/ack",
        "/rooms/{roomId}/subscriptions/{subscriptionId}/nack",
        "/rooms/{roomId}/subscriptions/{subscriptionId}/extend",
    } <= set(spec["paths"])
    assert ui.status_code == 200
    assert "swagger" in ui.text.lower()


def test_tenants_do_not_see_each_others_rooms(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    listed = tenant_b.get("/rooms").json()
    read = tenant_b.get(f"/rooms/{room['id']}")

    # Then
    assert listed["rooms"] == []
    assert_error(read, 404, room["id"])


def test_a_tenant_cannot_change_or_delete_another_tenants_room(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    patched = tenant_b.patch(f"/rooms/{room['id']}", {"name": "hijacked"})
    deleted = tenant_b.delete(f"/rooms/{room['id']}")
    subscribed = tenant_b.post(f"/rooms/{room['id']}/subscriptions", {"type": "PULL"})
    listed = tenant_b.get(f"/rooms/{room['id']}/subscriptions")

    # Then
    for response in (patched, deleted, subscribed, listed):
        assert_error(response, 404)
    assert tenant_a.get(f"/rooms/{room['id']}").json() == room
    assert tenant_a.get(f"/rooms/{room['id']}/subscriptions").json()["subscriptions"] == []


def test_a_tenant_cannot_read_another_tenants_job(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given: a job of tenant A (its room's deletion)
    room = tenant_a.create_room()
    job = tenant_a.finished_job(tenant_a.delete(f"/rooms/{room['id']}"))

    # When
    read = tenant_b.get(f"/jobs/{job['id']}")

    # Then: to B it does not exist; A still reads it
    assert_error(read, 404)
    assert tenant_a.get(f"/jobs/{job['id']}").json()["state"] == "succeeded"


def test_a_tenant_cannot_see_change_or_delete_another_tenants_subscription(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"

    # When
    read = tenant_b.get(path)
    patched = tenant_b.patch(path, {"deliveryAttempts": 0})
    deleted = tenant_b.delete(path)

    # Then
    for response in (read, patched, deleted):
        assert_error(response, 404)
    assert tenant_a.get(path).json() == {k: v for k, v in subscription.items() if k != "signingSecret"}


def test_a_tenant_cannot_use_another_tenants_subscription_as_failover(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room_a = tenant_a.create_room()
    subscription_a = tenant_a.create_subscription(room_a["id"])
    room_b = tenant_b.create_room()

    # When
    response = tenant_b.post(
        f"/rooms/{room_b['id']}/subscriptions",
        {"type": "PULL", "failoverSubscriptionId": subscription_a["id"]},
    )

    # Then
    assert_error(response, 422, "failover")
