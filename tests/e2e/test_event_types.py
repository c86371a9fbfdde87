"""The event-type catalog over HTTP on the local stack: create, read, list, change, archive and
restore, validate a payload; bad schemas refused with nothing stored; tenants kept apart."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from tests.e2e.conftest import ApiClient, assert_error

ORDER_V1 = {
    "type": "object",
    "required": ["orderId", "amount"],
    "properties": {"orderId": {"type": "integer"}, "amount": {"type": "number", "minimum": 0}},
}
ORDER_V2 = {**ORDER_V1, "required": ["orderId", "amount", "currency"]}


def _create(client: ApiClient, **fields: Any) -> dict[str, Any]:
    response = client.post("/event-types", {"name": "order.created", "schemas": {"1": ORDER_V1}, **fields})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_an_event_type_is_created_read_listed_changed_archived_and_restored(tenant_a: ApiClient) -> None:
    # When
    created = _create(tenant_a, description="An order was placed.")
    read = tenant_a.get("/event-types/order.created").json()
    listed = tenant_a.get("/event-types").json()["eventTypes"]
    changed = tenant_a.patch(
        "/event-types/order.created", {"schemas": {"2": ORDER_V2, "1": None}, "validation": "warn"}
    ).json()
    archived = tenant_a.delete("/event-types/order.created").json()
    gone = tenant_a.get("/event-types/order.created")
    hidden = tenant_a.get("/event-types").json()["eventTypes"]
    shown = tenant_a.get("/event-types", params={"includeArchived": "true"}).json()["eventTypes"]
    taken = tenant_a.post("/event-types", {"name": "order.created"})
    restored = tenant_a.post("/event-types/order.created/restore").json()

    # Then
    assert (created["validation"], created["archived"], created["versions"]) == ("reject", False, ["1"])
    assert created["schemas"] == {"1": ORDER_V1}
    assert read == created
    assert [(t["name"], t["versions"], t["schemas"]) for t in listed] == [("order.created", ["1"], None)]
    assert (changed["validation"], changed["versions"], changed["schemas"]) == (
        "warn",
        ["2"],
        {"2": ORDER_V2},
    )
    assert archived["archived"] is True
    assert_error(gone, 404, "archived")
    assert hidden == []
    assert [(t["name"], t["archived"]) for t in shown] == [("order.created", True)]
    assert_error(taken, 409, "exists")
    assert (restored["archived"], restored["versions"]) == (False, ["2"])
    assert tenant_a.get("/event-types/order.created").json() == restored


def test_a_payload_is_validated_against_its_versions_schema(tenant_a: ApiClient) -> None:
    # Given
    _create(tenant_a)

    # When
    bad = tenant_a.post(
        "/event-types/order.created/validate",
        {"eventVersion": "1", "payload": {"orderId": "x", "amount": -1}},
    ).json()
    good = tenant_a.post(
        "/event-types/order.created/validate", {"eventVersion": "1", "payload": {"orderId": 1, "amount": 5}}
    ).json()
    unknown = tenant_a.post(
        "/event-types/order.created/validate", {"eventVersion": "9", "payload": {}}
    ).json()

    # Then
    assert (bad["valid"], bad["checked"]) == (False, True)
    assert [e["path"] for e in bad["errors"]] == ["payload.orderId", "payload.amount"]
    assert "not of type" in bad["errors"][0]["message"]
    assert (good["valid"], good["errors"]) == (True, [])
    assert (unknown["valid"], unknown["checked"]) == (True, False)


def test_bad_schemas_and_names_are_refused_and_nothing_is_stored(tenant_a: ApiClient) -> None:
    # When
    meta = tenant_a.post("/event-types", {"name": "a", "schemas": {"1": {"type": 5}}})
    remote = tenant_a.post(
        "/event-types", {"name": "b", "schemas": {"1": {"$ref": "http://169.254.169.254/x"}}}
    )
    draft7 = tenant_a.post(
        "/event-types",
        {"name": "c", "schemas": {"1": {"$schema": "http://json-schema.org/draft-07/schema#"}}},
    )
    _create(tenant_a)
    again = tenant_a.post("/event-types", {"name": "order.created"})
    patched = tenant_a.patch(
        "/event-types/order.created", {"schemas": {"2": {"minimum": "x"}}, "validation": "off"}
    )

    # Then
    assert_error(meta, 400, "body.schemas.1", "not a valid json schema")
    assert_error(remote, 400, "body.schemas.1", "fetches nothing")
    assert_error(draft7, 400, "2020-12")
    assert_error(again, 409, "exists")
    assert_error(patched, 400, "body.schemas.2")
    assert [t["name"] for t in tenant_a.get("/event-types").json()["eventTypes"]] == ["order.created"]
    assert tenant_a.get("/event-types/order.created").json()["validation"] == "reject"


def test_a_name_with_a_slash_is_addressed_escaped(tenant_a: ApiClient) -> None:
    # Given
    tenant_a.post("/event-types", {"name": "billing/invoice:paid"})

    # When
    read = tenant_a.get(f"/event-types/{quote('billing/invoice:paid', safe='')}")

    # Then
    assert read.status_code == 200, read.text
    assert read.json()["name"] == "billing/invoice:paid"


def test_tenants_cannot_see_each_others_catalogs(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given
    _create(tenant_a)

    # Then
    assert_error(tenant_b.get("/event-types/order.created"), 404)
    assert_error(
        tenant_b.post("/event-types/order.created/validate", {"eventVersion": "1", "payload": {}}), 404
    )
    assert_error(tenant_b.delete("/event-types/order.created"), 404)
    assert tenant_b.get("/event-types").json()["eventTypes"] == []
    assert _create(tenant_b)["name"] == "order.created"  # names are per tenant
