"""Bad and hostile input to publish, pull, ack, nack, extend and message status: a clear 4xx with a JSON
error that names the problem, and nothing changed (nothing published, pulled, acked, nacked or
extended)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from roomcast.platform import limits
from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import delivery_of, publish, pull, pull_until, status

pytestmark = pytest.mark.security  # the security regression suite: make test-security

JSON_CONTENT = {"content-type": "application/json"}
PUBLIC_PUSH_URL = "https://93.184.216.34/hooks/roomcast"  # a public literal: no DNS needed
UNKNOWN_ROOM_ID = "room_" + "0" * 32
UNKNOWN_SUBSCRIPTION_ID = "sub_" + "0" * 32
UNKNOWN_MESSAGE_ID = "msg_" + "0" * 32
GOOD_MESSAGE: dict[str, Any] = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 42}}

TamperReceipt = Callable[[str], str]


# -- helpers --------------------------------------------------------------------------------------


def subscription_path(room_id: str, subscription_id: str) -> str:
    return f"/rooms/{room_id}/subscriptions/{subscription_id}"


def room_with_subscription(client: ApiClient, **subscription_fields: Any) -> tuple[str, str]:
    room = client.create_room()
    subscription = client.create_subscription(room["id"], **subscription_fields)
    return room["id"], subscription["id"]


def pulled_message(client: ApiClient, room_id: str, subscription_id: str) -> tuple[str, str]:
    """Publish one message and pull it: its id and its receipt (handed out, not acked)."""
    published = publish(client, room_id)
    messages = pull(client, room_id, subscription_id)
    assert [m["messageId"] for m in messages] == [published["messageId"]]
    return published["messageId"], messages[0]["receipt"]


def assert_nothing_published(client: ApiClient, room_id: str, subscription_id: str) -> None:
    # A publish enqueues before it answers 202, so a short poll sees anything that got through.
    assert pull(client, room_id, subscription_id, waitSeconds=0) == []


def assert_still_waiting_untouched(
    client: ApiClient, room_id: str, subscription_id: str, message_id: str, receipt: str
) -> None:
    """Neither acked nor nacked: no delivery record changed and the receipt still acks it."""
    delivery = delivery_of(status(client, room_id, message_id), subscription_id)
    assert (delivery["status"], delivery["attempts"]) == ("pending", 0)
    ack = client.post(f"{subscription_path(room_id, subscription_id)}/ack", {"receipts": [receipt]})
    assert ack.status_code == 200, ack.text
    assert ack.json() == {"acked": [message_id], "failed": []}


def receipts_body(action: str, receipts: list[str]) -> dict[str, Any]:
    """A valid body of an ack, nack or extend (which also takes the new ack wait), or of a pull
    that acks (``ack``), with these receipts."""
    if action == "pull":
        return {"ack": receipts}
    return {"receipts": receipts, **({"ackWaitMs": 60_000} if action == "extend" else {})}


def receipts_field(action: str) -> str:
    """The request field that holds the receipts of ``action``."""
    return "ack" if action == "pull" else "receipts"


def encoded_receipt(text: bytes) -> str:
    return "rcpt_" + base64.urlsafe_b64encode(text).decode().rstrip("=")


def receipt_fields(receipt: str) -> dict[str, Any]:
    encoded = receipt.removeprefix("rcpt_").partition(".")[0]
    fields: dict[str, Any] = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    return fields


def with_fields(receipt: str, **changes: Any) -> str:
    """The receipt re-encoded with some fields changed (None removes the field), keeping the
    signature it had (which no longer matches)."""
    fields = {k: v for k, v in {**receipt_fields(receipt), **changes}.items() if v is not None}
    return encoded_receipt(json.dumps(fields).encode()) + "." + receipt.partition(".")[2]


MISSING: Any = object()


def short_id(value: object) -> str | None:
    """Test ids: long strings cut short (None: pytest's own id)."""
    return f"{value[:30]}...{len(value)}" if isinstance(value, str) and len(value) > 40 else None


def message_body(**changes: Any) -> str:
    """The good message as JSON with some fields changed (or left out, when set to MISSING)."""
    fields = {k: v for k, v in {**GOOD_MESSAGE, **changes}.items() if v is not MISSING}
    return json.dumps(fields)


# -- publish --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status_code", "words"),
    [
        ('{"eventType": "order.created",', 400, ["not valid json"]),
        ("not json at all", 400, ["not valid json"]),
        ("[1, 2, 3]", 422, ["body"]),
        ("{}", 422, ["body.eventType", "body.eventVersion", "body.payload", "required"]),
        (message_body(eventType=MISSING), 422, ["body.eventType", "required"]),
        (message_body(eventVersion=MISSING), 422, ["body.eventVersion", "required"]),
        (message_body(payload=MISSING), 422, ["body.payload", "required"]),
        (message_body(eventType=42), 422, ["body.eventType", "string"]),
        (message_body(eventType="bad name!"), 422, ["body.eventType", "pattern"]),
        (message_body(eventType="ordér"), 422, ["body.eventType", "pattern"]),
        (message_body(eventType="e" * 129), 422, ["body.eventType", "at most 128"]),
        (message_body(eventVersion=1), 422, ["body.eventVersion", "string"]),
        (message_body(eventVersion="v1"), 422, ["body.eventVersion", "pattern"]),
        (message_body(eventVersion="1.2.3.4.5"), 422, ["body.eventVersion", "pattern"]),
        (message_body(eventVersion="1\n"), 422, ["body.eventVersion", "pattern"]),
        (message_body(eventVersion="\u0661"), 422, ["body.eventVersion", "pattern"]),  # an Arabic-Indic 1
        (message_body(eventVersion="1" * 33), 422, ["body.eventVersion", "at most 32"]),
        ('{"eventType": "order.created", "eventVersion": "1", "payload": NaN}', 422, ["payload", "finite"]),
        (
            '{"eventType": "order.created", "eventVersion": "1", "payload": [1e309]}',
            422,
            ["payload", "finite"],
        ),
        (message_body(colour="red"), 422, ["body.colour", "extra"]),
        (message_body(tenantId="tenant-b"), 422, ["body.tenantId", "extra"]),
        (message_body(correlationId="c" * 129), 422, ["body.correlationId", "at most 128"]),
        (message_body(correlationId=42), 422, ["body.correlationId", "string"]),
        (message_body(correlationId="order 42"), 422, ["body.correlationId", "pattern"]),
        (message_body(correlationId="order-42\n"), 422, ["body.correlationId", "pattern"]),
        (message_body(correlationId="order-42\u0000"), 422, ["body.correlationId", "pattern"]),
        (message_body(destinations=UNKNOWN_SUBSCRIPTION_ID), 422, ["body.destinations", "list"]),
        (message_body(destinations=[42]), 422, ["body.destinations.0", "string"]),
        (message_body(destinations=["s" * 65]), 422, ["body.destinations.0", "at most 64"]),
        (message_body(destinations=[UNKNOWN_SUBSCRIPTION_ID] * 201), 422, ["destinations", "at most 200"]),
    ],
    ids=short_id,
)
def test_bad_publish_bodies_are_refused_and_nothing_is_published(
    tenant_a: ApiClient, body: str, status_code: int, words: list[str]
) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When
    response = tenant_a.post(f"/rooms/{room_id}/messages", data=body.encode(), headers=JSON_CONTENT)

    # Then
    assert_error(response, status_code, *words)
    assert_nothing_published(tenant_a, room_id, subscription_id)


def test_a_destination_of_another_room_is_refused_and_neither_room_gets_the_message(
    tenant_a: ApiClient,
) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)
    other_room_id, other_subscription_id = room_with_subscription(tenant_a)

    # When
    response = tenant_a.post(
        f"/rooms/{room_id}/messages", {**GOOD_MESSAGE, "destinations": [other_subscription_id]}
    )

    # Then
    assert_error(response, 422, "destinations", "not a subscription of room", other_subscription_id)
    assert_nothing_published(tenant_a, room_id, subscription_id)
    assert_nothing_published(tenant_a, other_room_id, other_subscription_id)


def test_a_destination_of_another_tenant_is_refused_and_that_tenant_gets_nothing(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)
    foreign_room_id, foreign_subscription_id = room_with_subscription(tenant_b)

    # When
    response = tenant_a.post(
        f"/rooms/{room_id}/messages", {**GOOD_MESSAGE, "destinations": [foreign_subscription_id]}
    )

    # Then
    assert_error(response, 422, "not a subscription of room")
    assert_nothing_published(tenant_a, room_id, subscription_id)
    assert_nothing_published(tenant_b, foreign_room_id, foreign_subscription_id)


def test_one_bad_destination_refuses_the_whole_publish(tenant_a: ApiClient) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When: one good destination and one unknown
    response = tenant_a.post(
        f"/rooms/{room_id}/messages",
        {**GOOD_MESSAGE, "destinations": [subscription_id, UNKNOWN_SUBSCRIPTION_ID]},
    )

    # Then: all or nothing
    assert_error(response, 422, UNKNOWN_SUBSCRIPTION_ID, "not a subscription of room")
    assert_nothing_published(tenant_a, room_id, subscription_id)


def test_a_payload_over_128_kib_is_refused_with_413(tenant_a: ApiClient) -> None:
    # Given: a string payload one byte over the limit once serialized (two quotes included)
    room_id, subscription_id = room_with_subscription(tenant_a)
    payload = "x" * (limits.MAX_PAYLOAD_BYTES - 1)

    # When
    response = tenant_a.post(f"/rooms/{room_id}/messages", {**GOOD_MESSAGE, "payload": payload})

    # Then
    body = assert_error(
        response, 413, "payload", str(limits.MAX_PAYLOAD_BYTES + 1), str(limits.MAX_PAYLOAD_BYTES)
    )
    assert body["error"]["code"] == "payload_too_large"
    assert_nothing_published(tenant_a, room_id, subscription_id)


def test_a_payload_of_exactly_128_kib_is_accepted(tenant_a: ApiClient) -> None:
    # Given: the limit is inclusive
    room_id, subscription_id = room_with_subscription(tenant_a)
    payload = "x" * (limits.MAX_PAYLOAD_BYTES - 2)

    # When
    published = publish(tenant_a, room_id, payload=payload)

    # Then
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["payload"]) for m in pulled] == [(published["messageId"], payload)]


def test_a_body_over_256_kib_is_refused_with_413_before_it_is_parsed(tenant_a: ApiClient) -> None:
    # Given: the body is over the limit (and would not even be valid JSON)
    room_id, subscription_id = room_with_subscription(tenant_a)
    body = '{"eventType": "order.created", "eventVersion": "1", "payload": "' + "x" * (300 * 1024)

    # When
    response = tenant_a.post(f"/rooms/{room_id}/messages", data=body, headers=JSON_CONTENT)

    # Then
    error = assert_error(response, 413, "request body", str(limits.MAX_PUBLISH_BODY_BYTES))
    assert error["error"]["code"] == "payload_too_large"
    assert_nothing_published(tenant_a, room_id, subscription_id)


@pytest.mark.parametrize(
    ("headers", "words"),
    [
        ({"content-type": "text/plain"}, ["Content-Type: application/json", "text/plain"]),
        ({"content-type": "application/x-www-form-urlencoded"}, ["Content-Type: application/json"]),
        ({}, ["Content-Type: application/json", "none"]),
    ],
)
def test_a_publish_body_not_declared_json_gets_415(
    tenant_a: ApiClient, headers: dict[str, str], words: list[str]
) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When
    response = tenant_a.post(f"/rooms/{room_id}/messages", data=json.dumps(GOOD_MESSAGE), headers=headers)

    # Then
    assert_error(response, 415, *words)
    assert_nothing_published(tenant_a, room_id, subscription_id)


@pytest.mark.parametrize("content_type", ["Application/JSON", "application/vnd.roomcast+json"])
def test_a_json_media_type_the_guard_lets_through_is_accepted(tenant_a: ApiClient, content_type: str) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When
    response = tenant_a.post(
        f"/rooms/{room_id}/messages", data=json.dumps(GOOD_MESSAGE), headers={"content-type": content_type}
    )

    # Then
    assert response.status_code == 202, response.text
    assert [m["messageId"] for m in pull(tenant_a, room_id, subscription_id)] == [
        response.json()["messageId"]
    ]


@pytest.mark.parametrize("key", ["has space", "k" * 129, "", "a,b", "caf\u00e9"], ids=short_id)
def test_a_bad_idempotency_key_is_refused_with_400(tenant_a: ApiClient, key: str) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When
    response = tenant_a.post(f"/rooms/{room_id}/messages", GOOD_MESSAGE, headers={"Idempotency-Key": key})

    # Then
    body = assert_error(response, 400, "Idempotency-Key", "1-128")
    assert body["error"]["code"] == "invalid_idempotency_key"
    assert_nothing_published(tenant_a, room_id, subscription_id)


def test_a_refused_publish_does_not_use_up_its_idempotency_key(tenant_a: ApiClient) -> None:
    # Given: a publish the room refuses, under a key
    room = tenant_a.create_room(eventTypes=[{"name": "order.created", "versions": ["1"]}])
    subscription = tenant_a.create_subscription(room["id"])
    headers = {"Idempotency-Key": "order-42-created"}
    refused = tenant_a.post(
        f"/rooms/{room['id']}/messages", {**GOOD_MESSAGE, "eventType": "order.refunded"}, headers=headers
    )

    # When: the corrected publish reuses the key
    accepted = tenant_a.post(f"/rooms/{room['id']}/messages", GOOD_MESSAGE, headers=headers)

    # Then
    assert_error(refused, 422, "order.refunded")
    assert accepted.status_code == 202, accepted.text
    pulled = pull(tenant_a, room["id"], subscription["id"])
    assert [m["messageId"] for m in pulled] == [accepted.json()["messageId"]]


@pytest.mark.parametrize(
    "room_path",
    [
        UNKNOWN_ROOM_ID,
        "not-a-room-id",
        "{room}x",
        "{ROOM}",
        "r" * 3000,
        "room%2F..%2F",
    ],
    ids=short_id,
)
def test_publishing_to_a_room_that_does_not_exist_answers_404(tenant_a: ApiClient, room_path: str) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)
    path = room_path.replace("{room}", room_id).replace("{ROOM}", room_id.upper())

    # When
    response = tenant_a.post(f"/rooms/{path}/messages", GOOD_MESSAGE)

    # Then
    assert_error(response, 404)
    assert_nothing_published(tenant_a, room_id, subscription_id)


def test_publishing_to_another_tenants_room_answers_404(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When: tenant b even names tenant a's subscription
    response = tenant_b.post(
        f"/rooms/{room_id}/messages", {**GOOD_MESSAGE, "destinations": [subscription_id]}
    )

    # Then
    assert_error(response, 404, "not found")
    assert_nothing_published(tenant_a, room_id, subscription_id)


# -- pull -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["pull", "ack", "nack", "extend"])
def test_a_push_subscription_cannot_be_pulled_acked_nacked_or_extended(
    tenant_a: ApiClient, action: str
) -> None:
    # Given
    room = tenant_a.create_room()
    push = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=PUBLIC_PUSH_URL)
    body: dict[str, Any] = {} if action == "pull" else receipts_body(action, [encoded_receipt(b"{}")])
    before = tenant_a.get(subscription_path(room["id"], push["id"])).json()

    # When
    response = tenant_a.post(f"{subscription_path(room['id'], push['id'])}/{action}", body)

    # Then
    error = assert_error(response, 409, "PUSH", "only PULL")
    assert error["error"]["code"] == "conflict"
    assert tenant_a.get(subscription_path(room["id"], push["id"])).json() == before


@pytest.mark.parametrize(
    ("body", "status_code", "words"),
    [
        ('{"maxMessages": 0}', 422, ["body.maxMessages", "greater than or equal to 1"]),
        ('{"maxMessages": 11}', 422, ["body.maxMessages", "less than or equal to 10"]),
        ('{"maxMessages": "10"}', 422, ["body.maxMessages", "integer"]),
        ('{"maxMessages": 1.5}', 422, ["body.maxMessages", "integer"]),
        ('{"maxMessages": true}', 422, ["body.maxMessages", "integer"]),
        ('{"maxMessages": null}', 422, ["body.maxMessages", "integer"]),
        ('{"waitSeconds": -1}', 422, ["body.waitSeconds", "greater than or equal to 0"]),
        ('{"waitSeconds": 21}', 422, ["body.waitSeconds", "less than or equal to 20"]),
        ('{"waitSeconds": "0"}', 422, ["body.waitSeconds", "integer"]),
        ('{"waitSeconds": NaN}', 422, ["body.waitSeconds"]),
        ('{"visibilityTimeout": 30}', 422, ["body.visibilityTimeout", "extra"]),
        ("[]", 422, ["body"]),
        ('{"maxMessages": 1', 400, ["not valid json"]),
    ],
)
def test_bad_pull_bodies_are_refused_and_nothing_is_handed_out(
    tenant_a: ApiClient, body: str, status_code: int, words: list[str]
) -> None:
    # Given: a message waiting
    room_id, subscription_id = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)

    # When
    response = tenant_a.post(
        f"{subscription_path(room_id, subscription_id)}/pull", data=body.encode(), headers=JSON_CONTENT
    )

    # Then: refused, and the message was not received (it is still on its first attempt)
    assert_error(response, status_code, *words)
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["attempt"]) for m in pulled] == [(published["messageId"], 0)]


@pytest.mark.parametrize(
    ("action", "path"),
    [
        ("pull", "/rooms/{room}/subscriptions/" + UNKNOWN_SUBSCRIPTION_ID),
        ("pull", "/rooms/{room}/subscriptions/not-a-subscription"),
        ("pull", "/rooms/{room}/subscriptions/{SUB}"),
        ("pull", "/rooms/{room}/subscriptions/" + "s" * 3000),
        ("pull", "/rooms/" + UNKNOWN_ROOM_ID + "/subscriptions/{sub}"),
        ("pull", "/rooms/{other_room}/subscriptions/{sub}"),
        ("pull", "/rooms/{room}/subscriptions/{other_sub}"),
        ("ack", "/rooms/{room}/subscriptions/" + UNKNOWN_SUBSCRIPTION_ID),
        ("ack", "/rooms/{other_room}/subscriptions/{sub}"),
        ("nack", "/rooms/{room}/subscriptions/" + UNKNOWN_SUBSCRIPTION_ID),
        ("nack", "/rooms/{other_room}/subscriptions/{sub}"),
        ("extend", "/rooms/{room}/subscriptions/" + UNKNOWN_SUBSCRIPTION_ID),
        ("extend", "/rooms/{other_room}/subscriptions/{sub}"),
    ],
    ids=short_id,
)
def test_a_subscription_not_found_at_that_path_answers_404(
    tenant_a: ApiClient, path: str, action: str
) -> None:
    # Given: a message waiting, and another room with its own subscription
    room_id, subscription_id = room_with_subscription(tenant_a)
    other_room_id, other_subscription_id = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)
    real_path = (
        path.replace("{room}", room_id)
        .replace("{other_room}", other_room_id)
        .replace("{SUB}", subscription_id.upper())
        .replace("{sub}", subscription_id)
        .replace("{other_sub}", other_subscription_id)
    )
    body: dict[str, Any] = {} if action == "pull" else receipts_body(action, [encoded_receipt(b"{}")])

    # When
    response = tenant_a.post(f"{real_path}/{action}", body)

    # Then
    assert_error(response, 404, "not found")
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["attempt"]) for m in pulled] == [(published["messageId"], 0)]


@pytest.mark.parametrize("action", ["pull", "ack", "nack", "extend"])
def test_another_tenants_subscription_answers_404(
    tenant_a: ApiClient, tenant_b: ApiClient, action: str
) -> None:
    # Given: tenant a's message was pulled once; tenant b holds its receipt
    room_id, subscription_id = room_with_subscription(tenant_a)
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)
    body: dict[str, Any] = {} if action == "pull" else receipts_body(action, [receipt])

    # When
    response = tenant_b.post(f"{subscription_path(room_id, subscription_id)}/{action}", body)

    # Then
    assert_error(response, 404, "not found")
    assert_still_waiting_untouched(tenant_a, room_id, subscription_id, message_id, receipt)


# -- ack, nack and extend -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make_body", "words"),
    [
        pytest.param(lambda r: {"receipts": []}, ["body.receipts", "at least 1"], id="empty"),
        pytest.param(lambda r: {"receipts": [r] * 101}, ["body.receipts", "at most 100"], id="101"),
        pytest.param(lambda r: {"receipts": [r, 42]}, ["body.receipts.1", "string"], id="number"),
        pytest.param(lambda r: {"receipts": [r, ""]}, ["body.receipts.1", "at least 1"], id="blank"),
        pytest.param(lambda r: {"receipts": r}, ["body.receipts", "list"], id="string"),
        pytest.param(lambda r: {}, ["body.receipts", "required"], id="missing"),
        pytest.param(lambda r: {"receipts": [r], "force": True}, ["body.force", "extra"], id="extra"),
    ],
)
@pytest.mark.parametrize("action", ["ack", "nack"])
def test_bad_ack_and_nack_bodies_are_refused_and_change_nothing(
    tenant_a: ApiClient, action: str, make_body: Callable[[str], Any], words: list[str]
) -> None:
    # Given: a message pulled and not yet acked
    room_id, subscription_id = room_with_subscription(tenant_a)
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)

    # When
    response = tenant_a.post(f"{subscription_path(room_id, subscription_id)}/{action}", make_body(receipt))

    # Then
    assert_error(response, 422, *words)
    assert_still_waiting_untouched(tenant_a, room_id, subscription_id, message_id, receipt)


@pytest.mark.parametrize(
    ("make_body", "words"),
    [
        pytest.param(lambda r: {"receipts": [r]}, ["body.ackWaitMs", "required"], id="ack-wait-missing"),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": 0}, ["body.ackWaitMs", "greater than or equal"], id="0"
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": limits.MIN_ACK_WAIT_MS - 1},
            ["body.ackWaitMs", "greater than or equal to 1000"],
            id="below-minimum",
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": limits.MAX_ACK_WAIT_MS + 1},
            ["body.ackWaitMs", "less than or equal to 43200000"],
            id="over-12-hours",
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": "x"}, ["body.ackWaitMs", "integer"], id="string"
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": "60000"},
            ["body.ackWaitMs", "integer"],
            id="numeric-string",
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": 1500.5}, ["body.ackWaitMs", "integer"], id="fraction"
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": True}, ["body.ackWaitMs", "integer"], id="bool"
        ),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": None}, ["body.ackWaitMs", "integer"], id="null"
        ),
        pytest.param(
            lambda r: {"receipts": [], "ackWaitMs": 60_000}, ["body.receipts", "at least 1"], id="no-receipts"
        ),
        pytest.param(lambda r: {"ackWaitMs": 60_000}, ["body.receipts", "required"], id="receipts-missing"),
        pytest.param(
            lambda r: {"receipts": [r], "ackWaitMs": 60_000, "visibilityTimeout": 60},
            ["body.visibilityTimeout", "extra"],
            id="extra",
        ),
    ],
)
def test_bad_extend_bodies_are_refused_and_change_nothing(
    tenant_a: ApiClient, make_body: Callable[[str], Any], words: list[str]
) -> None:
    # Given: a message pulled and not yet acked
    room_id, subscription_id = room_with_subscription(tenant_a)
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)

    # When
    response = tenant_a.post(f"{subscription_path(room_id, subscription_id)}/extend", make_body(receipt))

    # Then
    assert_error(response, 422, *words)
    assert_still_waiting_untouched(tenant_a, room_id, subscription_id, message_id, receipt)


TAMPERINGS: dict[str, TamperReceipt] = {
    "garbage": lambda r: "garbage",
    "no-prefix": lambda r: r.removeprefix("rcpt_"),
    "prefix-in-capitals": lambda r: "RCPT_" + r.removeprefix("rcpt_"),
    "prefix-only": lambda r: "rcpt_",
    "truncated": lambda r: r[:40],
    "not-base64": lambda r: "rcpt_%%%%",
    "not-json": lambda r: encoded_receipt(b"not json"),
    "json-list": lambda r: encoded_receipt(b"[]"),
    "not-utf8": lambda r: encoded_receipt(b"\xff\xfe\x00"),
    "handle-missing": lambda r: with_fields(r, h=None),
    "handle-blank": lambda r: with_fields(r, h=""),
    "message-id-number": lambda r: with_fields(r, m=42),
    "attempt-negative": lambda r: with_fields(r, a=-1),
    "attempt-boolean": lambda r: with_fields(r, a=True),
    "attempt-fraction": lambda r: with_fields(r, a=1.5),
    "expiry-string": lambda r: with_fields(r, x="never"),
    # Well-formed, but edited: the signature no longer matches (issue 10's attacks).
    "attempt-huge": lambda r: with_fields(r, a=10**40),
    "attempt-raised": lambda r: with_fields(r, a=99),
    "message-id-2100-characters": lambda r: with_fields(r, m="m" * 2100),
    "message-id-edited": lambda r: with_fields(r, m=UNKNOWN_MESSAGE_ID),
    "expiry-edited": lambda r: with_fields(r, x=1),
    "signature-missing": lambda r: r.partition(".")[0],
    "signature-edited": lambda r: r[:-4] + ("AAAA" if not r.endswith("AAAA") else "BBBB"),
}
# ack, nack, extend and a pull's ack share the decoding: every tampering on ack, a few on the others.
TAMPERED_RECEIPTS = [pytest.param("ack", tamper, id=f"ack-{name}") for name, tamper in TAMPERINGS.items()] + [
    pytest.param(action, TAMPERINGS[name], id=f"{action}-{name}")
    for action in ("nack", "extend", "pull")
    for name in ("garbage", "truncated", "not-json", "handle-missing", "attempt-negative")
]


@pytest.mark.parametrize(("action", "tamper"), TAMPERED_RECEIPTS)
def test_a_tampered_receipt_is_refused_with_400_and_changes_nothing(
    tenant_a: ApiClient, action: str, tamper: TamperReceipt
) -> None:
    # Given
    room_id, subscription_id = room_with_subscription(tenant_a)
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)

    # When
    response = tenant_a.post(
        f"{subscription_path(room_id, subscription_id)}/{action}", receipts_body(action, [tamper(receipt)])
    )

    # Then
    body = assert_error(response, 400, f"body.{receipts_field(action)}.0", "not a roomcast receipt")
    assert body["error"]["code"] == "invalid_receipt"
    assert_still_waiting_untouched(tenant_a, room_id, subscription_id, message_id, receipt)


@pytest.mark.parametrize("action", ["ack", "nack", "extend"])
def test_a_receipt_of_another_subscription_is_refused_and_the_message_comes_back(
    tenant_a: ApiClient, action: str
) -> None:
    # Given: a message pulled from one subscription (ack wait 1 s), and a second subscription
    room_id, subscription_id = room_with_subscription(tenant_a, ackWaitMs=1000)
    other = tenant_a.create_subscription(room_id, eventTypes=[{"name": "order.paid"}])
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)

    # When: the receipt is given back on the other subscription
    response = tenant_a.post(
        f"{subscription_path(room_id, other['id'])}/{action}", receipts_body(action, [receipt])
    )

    # Then: refused; neither acked nor extended, so it comes back once the ack wait runs out
    body = assert_error(response, 400, "receipts.0", "belongs to another subscription")
    assert body["error"]["code"] == "invalid_receipt"
    assert delivery_of(status(tenant_a, room_id, message_id), subscription_id)["status"] == "pending"
    again, _ = pull_until(tenant_a, room_id, subscription_id, timeout_seconds=5)
    assert [(m["messageId"], m["attempt"]) for m in again] == [(message_id, 1)]


@pytest.mark.parametrize("action", ["ack", "nack", "extend", "pull"])
def test_another_tenants_receipt_is_refused_on_ones_own_subscription(
    tenant_a: ApiClient, tenant_b: ApiClient, action: str
) -> None:
    # Given: tenant b's pulled message, and tenant a with a subscription of its own
    foreign_room_id, foreign_subscription_id = room_with_subscription(tenant_b)
    foreign_message_id, foreign_receipt = pulled_message(tenant_b, foreign_room_id, foreign_subscription_id)
    room_id, subscription_id = room_with_subscription(tenant_a)

    # When: tenant a gives tenant b's receipt back on its own subscription
    response = tenant_a.post(
        f"{subscription_path(room_id, subscription_id)}/{action}", receipts_body(action, [foreign_receipt])
    )

    # Then
    assert_error(response, 400, "belongs to another subscription")
    assert_still_waiting_untouched(
        tenant_b, foreign_room_id, foreign_subscription_id, foreign_message_id, foreign_receipt
    )


@pytest.mark.parametrize(
    ("action", "bad_receipt", "words"),
    [
        pytest.param(
            "ack", lambda r, other: "garbage", ["receipts.1", "not a roomcast receipt"], id="ack-garbage"
        ),
        pytest.param(
            "ack", lambda r, other: r[:40], ["receipts.1", "not a roomcast receipt"], id="ack-truncated"
        ),
        pytest.param(
            "ack", lambda r, other: other, ["receipts.1", "belongs to another subscription"], id="ack-other"
        ),
        pytest.param(
            "nack", lambda r, other: other, ["receipts.1", "belongs to another subscription"], id="nack-other"
        ),
        pytest.param(
            "extend",
            lambda r, other: "garbage",
            ["receipts.1", "not a roomcast receipt"],
            id="extend-garbage",
        ),
        pytest.param(
            "extend",
            lambda r, other: other,
            ["receipts.1", "belongs to another subscription"],
            id="extend-other",
        ),
    ],
)
def test_one_bad_receipt_refuses_the_whole_list_and_the_good_one_is_untouched(
    tenant_a: ApiClient, action: str, bad_receipt: Callable[[str, str], str], words: list[str]
) -> None:
    # Given: a pulled message, and one pulled from another subscription
    room_id, subscription_id = room_with_subscription(tenant_a)
    other_room_id, other_subscription_id = room_with_subscription(tenant_a)
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)
    other_message_id, other_receipt = pulled_message(tenant_a, other_room_id, other_subscription_id)

    # When: a good receipt first, then a bad one
    response = tenant_a.post(
        f"{subscription_path(room_id, subscription_id)}/{action}",
        receipts_body(action, [receipt, bad_receipt(receipt, other_receipt)]),
    )

    # Then: refused before anything changed, on either subscription
    body = assert_error(response, 400, *words)
    assert body["error"]["code"] == "invalid_receipt"
    assert_still_waiting_untouched(tenant_a, room_id, subscription_id, message_id, receipt)
    assert_still_waiting_untouched(
        tenant_a, other_room_id, other_subscription_id, other_message_id, other_receipt
    )


@pytest.mark.parametrize(
    "tampered_fields",
    [
        pytest.param({"a": 1}, id="attempt-raised-to-the-last"),
        pytest.param({"x": 1}, id="expiry-in-the-past"),
        pytest.param({"a": 99}, id="attempt-past-every-limit"),
    ],
)
def test_a_nack_of_a_forged_receipt_changes_nothing(
    tenant_a: ApiClient, empty_stack: LocalStack, tampered_fields: dict[str, int]
) -> None:
    # Given: one redelivery allowed; a receipt edited to end the message (dead or expired)
    room = tenant_a.create_room(deliveryAttempts=1)
    subscription = tenant_a.create_subscription(room["id"])
    message_id, receipt = pulled_message(tenant_a, room["id"], subscription["id"])
    forged = with_fields(receipt, **tampered_fields)

    # When
    response = tenant_a.post(
        f"{subscription_path(room['id'], subscription['id'])}/nack", {"receipts": [forged]}
    )

    # Then: refused; no dead letter, nothing in the dead-letter queue, the message still waits
    assert_error(response, 400, "receipts.0", "not a roomcast receipt")
    dead_letter_queue = empty_stack.queue_url(
        f"{empty_stack.output('PullQueuePrefix')}{subscription['id']}-dlq"
    )
    assert "Messages" not in empty_stack.sqs_client().receive_message(QueueUrl=dead_letter_queue)
    dead_letters = tenant_a.get(f"{subscription_path(room['id'], subscription['id'])}/dead-letters")
    assert dead_letters.json()["deadLetters"] == []
    assert_still_waiting_untouched(tenant_a, room["id"], subscription["id"], message_id, receipt)


# -- message status -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message_path",
    [
        UNKNOWN_MESSAGE_ID,
        "not-a-message-id",
        "{MSG}",
        "m" * 3000,
        "%00",
    ],
    ids=short_id,
)
def test_status_of_an_unknown_or_malformed_message_id_answers_404(
    tenant_a: ApiClient, message_path: str
) -> None:
    # Given
    room_id, _ = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)
    before = status(tenant_a, room_id, published["messageId"])
    path = message_path.replace("{MSG}", published["messageId"].upper())

    # When
    response = tenant_a.get(f"/rooms/{room_id}/messages/{path}")

    # Then
    assert_error(response, 404, "not found")
    assert status(tenant_a, room_id, published["messageId"]) == before


def test_status_of_a_message_under_another_rooms_path_answers_404(tenant_a: ApiClient) -> None:
    # Given
    room_id, _ = room_with_subscription(tenant_a)
    other_room = tenant_a.create_room(name="other")
    published = publish(tenant_a, room_id)

    # When
    response = tenant_a.get(f"/rooms/{other_room['id']}/messages/{published['messageId']}")

    # Then
    assert_error(response, 404, "not found")


@pytest.mark.parametrize("through", ["owner's room", "own room"])
def test_status_of_another_tenants_message_answers_404(
    tenant_a: ApiClient, tenant_b: ApiClient, through: str
) -> None:
    # Given
    room_id, _ = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)
    path_room_id = room_id if through == "owner's room" else tenant_b.create_room()["id"]

    # When
    response = tenant_b.get(f"/rooms/{path_room_id}/messages/{published['messageId']}")

    # Then
    assert_error(response, 404, "not found")
    assert status(tenant_a, room_id, published["messageId"])["messageId"] == published["messageId"]


@pytest.mark.parametrize("action", ["messages", "pull", "ack"])
def test_a_list_body_is_refused_even_when_its_first_item_is_a_valid_request(
    tenant_a: ApiClient, action: str
) -> None:
    # Given: a message pulled (receipt in hand) and another one waiting
    room_id, subscription_id = room_with_subscription(tenant_a)
    message_id, receipt = pulled_message(tenant_a, room_id, subscription_id)
    waiting = publish(tenant_a, room_id)
    valid_request = {"messages": GOOD_MESSAGE, "pull": {"maxMessages": 10}, "ack": {"receipts": [receipt]}}[
        action
    ]
    path = (
        f"/rooms/{room_id}/messages"
        if action == "messages"
        else f"{subscription_path(room_id, subscription_id)}/{action}"
    )

    # When
    response = tenant_a.post(path, [valid_request, "trailing garbage"])

    # Then: refused; nothing published, handed out or acked
    assert_error(response, 422, "body")
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["attempt"]) for m in pulled] == [(waiting["messageId"], 0)]
    assert_still_waiting_untouched(tenant_a, room_id, subscription_id, message_id, receipt)


# -- hostile sweep --------------------------------------------------------------------------------

HOSTILE_BODIES = [
    "",
    "null",
    "0",
    "-0",
    "true",
    '"string"',
    "[]",
    "\ufeff{}",
    "{" * 10_000,
    '{"eventType": null, "eventVersion": null, "payload": null, "receipts": null, "maxMessages": null}',
    '{"eventType": "order.created", "eventVersion": "1", "payload": 1e309}',
    '{"eventType": "order.created", "eventVersion": "1", "payload": -1e309, "maxMessages": 1e309}',
    '{"eventType": "order.created", "eventVersion": "1", "payload": NaN, "waitSeconds": NaN}',
    '{"eventType": "order.created", "eventVersion": "1", "payload": {}, "maxMessages": Infinity}',
    '{"eventType": "\u2603", "eventVersion": "\u0661", "payload": "\u202e", "maxMessages": "\u0661"}',
    '{"eventType": "a\\u0000b", "eventVersion": "1\\u0000", "payload": {}, "receipts": ["rcpt_\\u0000"]}',
    '{"eventType": "a\x01b", "eventVersion": "1", "payload": {}}',
    '{"eventType": "\\ud800", "eventVersion": "1", "payload": {}, "receipts": ["\\udfff"]}',
    '{"__proto__": {"admin": true}, "constructor": {"prototype": {}}}',
    '{"maxMessages": {"$gt": 0}, "receipts": {"$ne": null}, "eventType": {"$regex": ".*"}}',
    '{"receipts": [' + ",".join(['"rcpt_x"'] * 5_000) + "]}",
    '{"receipts": ["rcpt_' + "A" * 100_000 + '"]}',
    '{"eventType": "order.created", "eventVersion": "1", "payload": {}, "destinations": ['
    + ",".join(['"sub_x"'] * 5_000)
    + "]}",
    '{"eventType": "order.created", "eventVersion": "1", "payload": {}, "correlationId": "'
    + "c" * 100_000
    + '"}',
]


def test_hostile_requests_to_the_message_routes_never_get_a_5xx(tenant_a: ApiClient) -> None:
    # Given: a message waiting
    room_id, subscription_id = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)
    paths = [f"/rooms/{room_id}/messages"] + [
        f"{subscription_path(room_id, subscription_id)}/{action}"
        for action in ("pull", "ack", "nack", "extend")
    ]

    # When
    responses = {
        (path.rsplit("/", 1)[-1], body[:40]): tenant_a.post(path, data=body.encode(), headers=JSON_CONTENT)
        for body in HOSTILE_BODIES
        for path in paths
    }

    # Then: every one is a 4xx with the JSON error, and the waiting message was not touched
    # (bodies Python cannot parse have a test of their own below)
    not_4xx = {
        key: response.status_code for key, response in responses.items() if response.status_code // 100 != 4
    }
    assert not_4xx == {}
    assert all(response.json()["error"]["message"] for response in responses.values())
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["attempt"]) for m in pulled] == [(published["messageId"], 0)]


DEEPLY_NESTED = b"[" * 100_000 + b"]" * 100_000
UNPARSABLE_BODIES = [
    pytest.param("messages", DEEPLY_NESTED, id="messages-nested-100000-deep"),
    pytest.param("pull", DEEPLY_NESTED, id="pull-nested-100000-deep"),
    pytest.param("ack", DEEPLY_NESTED, id="ack-nested-100000-deep"),
    pytest.param("nack", DEEPLY_NESTED, id="nack-nested-100000-deep"),
    pytest.param("extend", DEEPLY_NESTED, id="extend-nested-100000-deep"),
    pytest.param(
        "messages", b'{"payload": ' + b'{"a":' * 40_000 + b"1" + b"}" * 40_001, id="messages-objects-deep"
    ),
    pytest.param("ack", b'{"receipts": ["\xff"]}', id="ack-latin-1"),
    pytest.param("nack", '{"receipts": ["rcpt_x"]}'.encode("utf-16"), id="nack-utf-16"),
]


@pytest.mark.parametrize(("action", "body"), UNPARSABLE_BODIES)
def test_a_body_python_cannot_parse_gets_400_not_500(tenant_a: ApiClient, action: str, body: bytes) -> None:
    # Given: a message waiting
    room_id, subscription_id = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)
    path = (
        f"/rooms/{room_id}/messages"
        if action == "messages"
        else f"{subscription_path(room_id, subscription_id)}/{action}"
    )

    # When
    response = tenant_a.post(path, data=body, headers=JSON_CONTENT)

    # Then
    assert_error(response, 400, "json")
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["attempt"]) for m in pulled] == [(published["messageId"], 0)]


@pytest.mark.parametrize(
    ("action", "body"),
    [
        pytest.param(
            "messages", message_body(payload=0).replace("0}", "9" * 5_000 + "}").encode(), id="5000-digits"
        ),
        pytest.param("pull", b'{"maxMessages": ' + b"1" * 5_000 + b"}", id="pull-5000-digit-count"),
    ],
)
def test_an_integer_python_will_not_convert_gets_400_saying_so(
    tenant_a: ApiClient, action: str, body: bytes
) -> None:
    # Given: a message waiting
    room_id, subscription_id = room_with_subscription(tenant_a)
    published = publish(tenant_a, room_id)
    path = (
        f"/rooms/{room_id}/messages"
        if action == "messages"
        else f"{subscription_path(room_id, subscription_id)}/{action}"
    )

    # When: valid JSON, with an integer past sys.get_int_max_str_digits() (not malformed_json)
    response = tenant_a.post(path, data=body, headers=JSON_CONTENT)

    # Then
    error = assert_error(response, 400, "more than 4300 digits", "at most 4300 digits")
    assert error["error"]["code"] == "integer_too_long"
    pulled = pull(tenant_a, room_id, subscription_id)
    assert [(m["messageId"], m["attempt"]) for m in pulled] == [(published["messageId"], 0)]
