"""A tenant manages its own API keys over the API: create (shown once), list, revoke; never its
last key, never another tenant's, never more than the limit."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from roomcast.platform.limits import MAX_API_KEYS_PER_TENANT
from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, assert_error

KEY_ID = re.compile(r"^key_[0-9a-f]{16}$")


def _keys(client: ApiClient) -> list[dict[str, Any]]:
    response = client.get("/api-keys")
    assert response.status_code == 200, response.text
    keys: list[dict[str, Any]] = response.json()["apiKeys"]
    return keys


def _as(client: ApiClient, key: str) -> ApiClient:
    return ApiClient(client.base_url, key, client.session)


def test_a_created_key_works_once_shown_and_is_listed_without_its_secret(tenant_a: ApiClient) -> None:
    # When
    response = tenant_a.post("/api-keys", json={"name": "billing service"})

    # Then: shown once, with an id that is not the key
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["key"].startswith("rc_")
    assert KEY_ID.match(created["keyId"])
    assert created["name"] == "billing service"
    new_client = _as(tenant_a, created["key"])
    assert new_client.get("/rooms").status_code == 200
    listed = _keys(new_client)
    assert {k["keyId"] for k in listed if k["current"]} == {created["keyId"]}
    assert len(listed) == 2  # the fixture's key and this one
    assert all("key" not in k and created["key"] not in str(k) for k in listed)
    assert [k for k in _keys(tenant_a) if k["current"]] != [k for k in listed if k["current"]]


def test_a_revoked_key_is_refused_once_the_authorizer_cache_lets_go(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given: a second key, used once (the gateway caches the authorizer's answer for it)
    created = tenant_a.post("/api-keys", json={}).json()
    second = _as(tenant_a, created["key"])
    assert second.get("/rooms").status_code == 200

    # When
    revoked = tenant_a.delete(f"/api-keys/{created['keyId']}")

    # Then: gone from the list; refused once the cached answer expires (300 s by default)
    assert revoked.status_code == 204, revoked.text
    assert created["keyId"] not in {k["keyId"] for k in _keys(tenant_a)}
    assert second.get("/rooms").status_code == 200  # the documented cache window
    assert empty_stack.gateway is not None
    empty_stack.gateway.clear_authorizer_cache()
    assert second.get("/rooms").status_code == 403
    assert tenant_a.get("/rooms").status_code == 200


def test_the_last_key_cannot_be_revoked(tenant_a: ApiClient) -> None:
    # Given: the fixture's key is the tenant's only one
    (only,) = _keys(tenant_a)

    # When
    response = tenant_a.delete(f"/api-keys/{only['keyId']}")

    # Then
    body = assert_error(response, 409, "only key")
    assert body["error"]["code"] == "last_key"
    assert _keys(tenant_a) == [only]


def test_two_revocations_at_once_leave_one_key(tenant_a: ApiClient, http: requests.Session) -> None:
    # Given: two keys; each revokes the other at the same moment
    created = tenant_a.post("/api-keys", json={"name": "second"}).json()
    second = _as(tenant_a, created["key"])
    (first_id,) = [k["keyId"] for k in _keys(tenant_a) if k["current"]]
    # both keys used once: the gateway has cached the authorizer's yes for each, so both deletes
    # reach the function whichever lands first (else a revoked key's request could be a 403 first)
    assert _keys(second)

    # When
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(
                lambda pair: pair[0].delete(f"/api-keys/{pair[1]}"),
                [(tenant_a, created["keyId"]), (second, first_id)],
            )
        )

    # Then: one went through, the other met the count's condition
    assert sorted(a.status_code for a in answers) == [204, 409], [a.text for a in answers]
    survivors = [k["keyId"] for client in (tenant_a, second) for k in _keys_if_allowed(client)]
    assert len(set(survivors)) == 1


def _keys_if_allowed(client: ApiClient) -> list[dict[str, Any]]:
    response = client.get("/api-keys")
    return response.json()["apiKeys"] if response.status_code == 200 else []


def test_another_tenants_key_is_not_found_and_stays(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given
    created = tenant_b.post("/api-keys", json={"name": "b's"}).json()

    # When
    response = tenant_a.delete(f"/api-keys/{created['keyId']}")

    # Then
    assert_error(response, 404, created["keyId"])
    assert created["keyId"] in {k["keyId"] for k in _keys(tenant_b)}
    assert all(k["keyId"] != created["keyId"] for k in _keys(tenant_a))


def test_a_tenant_holds_at_most_the_limit(tenant_a: ApiClient) -> None:
    # Given: the fixture's key and as many more as the limit allows
    for number in range(MAX_API_KEYS_PER_TENANT - 1):
        assert tenant_a.post("/api-keys", json={"name": f"k{number}"}).status_code == 201

    # When
    response = tenant_a.post("/api-keys", json={"name": "one too many"})

    # Then: refused, and the list pages through exactly the limit
    body = assert_error(response, 409, str(MAX_API_KEYS_PER_TENANT))
    assert body["error"]["code"] == "too_many_keys"
    first = tenant_a.get("/api-keys", params={"limit": 15}).json()
    rest = tenant_a.get("/api-keys", params={"limit": 15, "cursor": first["nextCursor"]}).json()
    assert len(first["apiKeys"]) + len(rest["apiKeys"]) == MAX_API_KEYS_PER_TENANT
    assert rest["nextCursor"] is None


def test_bad_requests_change_nothing(tenant_a: ApiClient) -> None:
    # Given
    before = _keys(tenant_a)

    # When / Then
    assert_error(tenant_a.post("/api-keys", json={"name": ""}), 422, "name")
    assert_error(tenant_a.post("/api-keys", json={"name": "x", "tenantId": "tenant-b"}), 422, "tenantId")
    assert_error(tenant_a.post("/api-keys", json={"name": 7}), 422, "name")
    assert_error(tenant_a.delete("/api-keys/key_0000000000000000"), 404, "key_0000000000000000")
    assert_error(tenant_a.delete("/api-keys/not-a-key"), 404, "not-a-key")
    assert_error(tenant_a.get("/api-keys", params={"cursor": "bm90IGEgY3Vyc29y"}), 400, "cursor")
    assert _keys(tenant_a) == before
