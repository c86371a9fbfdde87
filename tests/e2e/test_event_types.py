"""The event-type catalog over HTTP on the local stack: create, read, list, change, archive and
restore, validate a payload; bad schemas refused with nothing stored; tenants kept apart."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from openapi_spec_validator import validate

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


# -- at publish ------------------------------------------------------------------------------------


def _publish(client: ApiClient, room_id: str, payload: Any, event_type: str = "order.created") -> Any:
    return client.post(
        f"/rooms/{room_id}/messages", {"eventType": event_type, "eventVersion": "1", "payload": payload}
    )


def test_reject_refuses_a_breaking_payload_with_each_error_and_stores_nothing(tenant_a: ApiClient) -> None:
    # Given
    _create(tenant_a)
    room = tenant_a.create_room()
    tenant_a.create_subscription(room["id"])

    # When
    refused = _publish(tenant_a, room["id"], {"orderId": "x", "amount": -1})
    accepted = _publish(tenant_a, room["id"], {"orderId": 7, "amount": 5})

    # Then
    error = assert_error(refused, 422, "schema of order.created version 1")["error"]
    assert error["code"] == "schema_violation"
    assert [d["field"] for d in error["details"]] == ["body.payload.orderId", "body.payload.amount"]
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["schemaErrors"] == []
    listed = tenant_a.get(f"/rooms/{room['id']}/messages").json()["messages"]
    assert [m["messageId"] for m in listed] == [accepted.json()["messageId"]]


def test_a_batch_refuses_only_its_breaking_message(tenant_a: ApiClient) -> None:
    # Given
    _create(tenant_a)
    room = tenant_a.create_room()
    order = {"eventType": "order.created", "eventVersion": "1"}

    # When
    response = tenant_a.post(
        f"/rooms/{room['id']}/messages/batch",
        {
            "messages": [
                {**order, "payload": {"orderId": 1, "amount": 1}},
                {**order, "payload": {"orderId": 2}},
            ]
        },
    )

    # Then
    assert response.status_code == 200, response.text
    first, second = response.json()["results"]
    assert (first["status"], second["status"], response.json()["failedCount"]) == (202, 422, 1)
    assert second["error"]["code"] == "schema_violation"
    assert second["error"]["details"][0]["field"] == "body.messages.1.payload"


def test_warn_publishes_keeps_the_errors_and_reports_them_to_the_operations_room(tenant_a: ApiClient) -> None:
    # Given
    _create(tenant_a, validation="warn")
    operations = tenant_a.create_room(name="ops")
    ops_queue = tenant_a.create_subscription(operations["id"])
    room = tenant_a.create_room(operationsRoomId=operations["id"])

    # When
    published = _publish(tenant_a, room["id"], {"orderId": "x", "amount": 1})

    # Then
    assert published.status_code == 202, published.text
    errors = ['payload.orderId: "x" is not of type "integer"']
    assert published.json()["schemaErrors"] == errors
    details = tenant_a.get(f"/rooms/{room['id']}/messages/{published.json()['messageId']}").json()
    assert details["schemaErrors"] == errors
    pulled = tenant_a.post(
        f"/rooms/{operations['id']}/subscriptions/{ops_queue['id']}/pull", {"waitSeconds": 5}
    ).json()["messages"]
    assert [(m["eventType"], m["payload"]["messageId"], m["payload"]["errors"]) for m in pulled] == [
        ("message.schema_invalid", published.json()["messageId"], errors)
    ]


def test_off_archived_and_schemaless_versions_are_not_checked(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    _create(tenant_a, validation="off")
    tenant_a.post("/event-types", {"name": "order.paid", "schemas": {"1": ORDER_V1}})
    tenant_a.delete("/event-types/order.paid")
    tenant_a.post("/event-types", {"name": "order.void", "schemas": {"2": ORDER_V1}})

    # Then
    assert _publish(tenant_a, room["id"], {}).status_code == 202
    assert _publish(tenant_a, room["id"], {}, "order.paid").status_code == 202
    assert _publish(tenant_a, room["id"], {}, "order.void").status_code == 202


def test_a_room_can_refuse_event_types_not_in_the_catalog(tenant_a: ApiClient) -> None:
    # Given
    _create(tenant_a)
    room = tenant_a.create_room(undeclaredEventTypes="reject")

    # When
    undeclared = _publish(tenant_a, room["id"], {}, "order.unknown")
    declared = _publish(tenant_a, room["id"], {"orderId": 1, "amount": 1})
    opened = tenant_a.patch(f"/rooms/{room['id']}", {"undeclaredEventTypes": "allow"})

    # Then
    assert assert_error(undeclared, 422, "not in the catalog")["error"]["code"] == "undeclared_event_type"
    assert declared.status_code == 202
    assert opened.json()["undeclaredEventTypes"] == "allow"
    assert _publish(tenant_a, room["id"], {}, "order.unknown").status_code == 202


def test_the_catalog_exports_as_openapi_webhooks_for_its_tenant_only(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    _create(tenant_a)
    tenant_a.post("/event-types", {"name": "order.paid", "schemas": {"1": ORDER_V1}})
    tenant_a.delete("/event-types/order.paid")

    # When
    exported = tenant_a.get("/catalog/openapi.json")
    other = tenant_b.get("/catalog/openapi.json").json()

    # Then
    assert exported.status_code == 200, exported.text
    validate(exported.json())
    assert list(exported.json()["webhooks"]) == ["order.created v1"]
    assert other["webhooks"] == {}


def test_an_event_type_holds_at_most_twenty_schemas(tenant_a: ApiClient) -> None:
    # Given: an event type with 20 versions' schemas
    twenty = {str(n): {"type": "object"} for n in range(20)}
    assert tenant_a.post("/event-types", {"name": "order.created", "schemas": twenty}).status_code == 201

    # When
    one_more = tenant_a.patch("/event-types/order.created", {"schemas": {"20": {"type": "object"}}})
    too_many = tenant_a.post("/event-types", {"name": "order.paid", "schemas": {**twenty, "20": {}}})
    swapped = tenant_a.patch("/event-types/order.created", {"schemas": {"20": {}, "0": None}})

    # Then
    assert assert_error(one_more, 400, "at most 20 schemas")["error"]["code"] == "invalid_schema"
    assert_error(too_many, 422, "body.schemas")
    assert swapped.status_code == 200, swapped.text
    assert len(swapped.json()["versions"]) == 20
    assert "0" not in swapped.json()["versions"]
