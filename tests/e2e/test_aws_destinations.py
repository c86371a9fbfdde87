"""PUSH into AWS, end to end on the local stack (issue 53): a second emulator account plays the
customer (roomcast_dev.customer_account), with its queue, bus or topic and the role roomcast
assumes there with an external ID; the emulator checks the role's trust policy on each AssumeRole.
What arrived is read with the emulator's own APIs, in the customer's account."""

from __future__ import annotations

import json
import uuid
from typing import Any

from roomcast_dev.customer_account import customer_client, delivery_role
from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, wait_until

EXTERNAL_ID = "acme-7f3c2a"


def _role(stack: LocalStack) -> str:
    """The customer's role, named afresh for each test: a function's container keeps the credentials
    it assumed until they near expiry, and the emulator, reset between tests, would no longer know
    them (on AWS they stay valid)."""
    return delivery_role(stack.endpoint_url, f"roomcast-delivery-{uuid.uuid4().hex[:8]}", EXTERNAL_ID)


def _queue(stack: LocalStack, name: str) -> tuple[str, str]:
    """A queue in the customer's account: (its URL, its ARN)."""
    sqs = customer_client("sqs", stack.endpoint_url)
    attributes = {"FifoQueue": "true"} if name.endswith(".fifo") else {}
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return str(url), str(arn)


def _received(stack: LocalStack, queue_url: str, count: int) -> list[dict[str, Any]]:
    """``count`` messages read from the customer's queue (and deleted), in the order received."""
    sqs = customer_client("sqs", stack.endpoint_url)
    got: list[dict[str, Any]] = []

    def enough() -> bool:
        answer = sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageAttributeNames=["All"],
            AttributeNames=["All"],
        )  # fmt: skip
        for message in answer.get("Messages", []):
            got.append(message)
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
        return len(got) >= count

    wait_until(enough, f"{count} messages in {queue_url}")
    return got


def _sqs_subscription(client: ApiClient, room_id: str, arn: str, role: str, **fields: Any) -> Any:
    destination = {"kind": "sqs", "arn": arn, "roleArn": role, "externalId": EXTERNAL_ID}
    return client.post(
        f"/rooms/{room_id}/subscriptions", {"type": "PUSH", "destination": destination, **fields}
    )


def _publish(client: ApiClient, room_id: str, payload: Any, **fields: Any) -> str:
    body = {"eventType": "order.created", "eventVersion": "1", "payload": payload, **fields}
    response = client.post(f"/rooms/{room_id}/messages", body)
    assert response.status_code == 202, response.text
    return str(response.json()["messageId"])


def test_a_message_reaches_a_queue_in_the_customers_account_and_a_wrong_external_id_is_refused(
    tenant_a: ApiClient, tenant_b: ApiClient, empty_stack: LocalStack
) -> None:
    # Given: the customer's queue and role
    queue_url, queue_arn = _queue(empty_stack, "orders")
    role = _role(empty_stack)
    room = tenant_a.create_room()

    # When: a wrong external ID, then the right one
    wrong = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions",
        {
            "type": "PUSH",
            "destination": {"kind": "sqs", "arn": queue_arn, "roleArn": role, "externalId": "guess"},
        },
    )
    created = _sqs_subscription(tenant_a, room["id"], queue_arn, role)
    message_id = _publish(tenant_a, room["id"], {"orderId": 1})

    # Then: the wrong one names the role and stores nothing
    assert wrong.status_code == 422, wrong.text
    assert wrong.json()["error"]["details"][0]["field"] == "body.destination.roleArn"
    assert created.status_code == 201, created.text
    assert created.json()["destination"]["arn"] == queue_arn
    # ... the dry send's ping, then the message with its attributes
    ping, delivered = _received(empty_stack, queue_url, 2)
    assert json.loads(ping["Body"])["type"] == "roomcast.ping"
    assert json.loads(delivered["Body"])["payload"] == {"orderId": 1}
    assert delivered["MessageAttributes"]["messageId"]["StringValue"] == message_id
    path = f"/rooms/{room['id']}/subscriptions/{created.json()['id']}"
    assert tenant_b.get(path).status_code == 404


def test_a_deleted_queue_makes_attempts_fail_and_end_dead_and_a_replay_after_recreating_it_delivers(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given: a subscription to a queue the customer then deletes
    queue_url, queue_arn = _queue(empty_stack, "orders")
    role = _role(empty_stack)
    room = tenant_a.create_room(deliveryDelayMs=200, deliveryAttempts=2)
    subscription = _sqs_subscription(tenant_a, room["id"], queue_arn, role).json()
    customer_client("sqs", empty_stack.endpoint_url).delete_queue(QueueUrl=queue_url)

    # When
    message_id = _publish(tenant_a, room["id"], {"orderId": 2})

    # Then: three failed sends (the first and its two redeliveries), AWS's error code first, and a dead letter
    def dead() -> dict[str, Any]:
        status = tenant_a.get(f"/rooms/{room['id']}/messages/{message_id}").json()
        (delivery,) = status["deliveries"]
        return dict(delivery) if delivery["status"] == "dead" else {}

    ended = wait_until(dead, "the dead delivery")
    attempts = tenant_a.get(f"/rooms/{room['id']}/messages/{message_id}/attempts").json()
    assert ended["attempts"] == 3, json.dumps([ended, attempts], indent=1)
    assert ended["lastError"].startswith("AWS.SimpleQueueService.NonExistentQueue: ")
    sends = [a for a in attempts["attempts"] if a["subscriptionId"] == subscription["id"]]
    assert [(a["attempt"], a["event"], a["httpStatus"]) for a in sends] == [
        (n, "send", None) for n in range(3)
    ]

    # When: the customer makes the queue again, and the operator replays
    queue_url, _ = _queue(empty_stack, "orders")
    replay = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters/replay",
        {"messageIds": [message_id]},
    )
    assert replay.status_code in (200, 202), replay.text

    # Then
    (delivered,) = _received(empty_stack, queue_url, 1)
    assert json.loads(delivered["Body"])["messageId"] == message_id


def test_an_ordered_subscription_to_a_fifo_queue_keeps_each_keys_order(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given: an ordered subscription; a standard queue is refused for it
    _, standard_arn = _queue(empty_stack, "plain")
    fifo_url, fifo_arn = _queue(empty_stack, "orders.fifo")
    role = _role(empty_stack)
    room = tenant_a.create_room()
    refused = _sqs_subscription(tenant_a, room["id"], standard_arn, role, ordered=True)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["details"][0]["field"] == "body.destination.arn"
    created = _sqs_subscription(tenant_a, room["id"], fifo_arn, role, ordered=True)
    assert created.status_code == 201, created.text

    # When: two keys, interleaved
    sent = [(key, n) for n in range(3) for key in ("a", "b")]
    for key, n in sent:
        _publish(tenant_a, room["id"], {"key": key, "n": n}, orderingKey=key)

    # Then: each key's messages in publish order, the key as their group
    got = [
        m for m in _received(empty_stack, fifo_url, 7) if json.loads(m["Body"]).get("type") != "roomcast.ping"
    ]
    for key in ("a", "b"):
        mine = [m for m in got if m["Attributes"]["MessageGroupId"] == key]
        assert [json.loads(m["Body"])["payload"]["n"] for m in mine] == [0, 1, 2]


def test_eventbridge_and_sns_destinations_deliver(tenant_a: ApiClient, empty_stack: LocalStack) -> None:
    # Given: a bus whose rule sends roomcast's events to a queue, and a topic a queue subscribes to
    endpoint = empty_stack.endpoint_url
    role = _role(empty_stack)
    bus_queue_url, bus_queue_arn = _queue(empty_stack, "from-bus")
    topic_queue_url, topic_queue_arn = _queue(empty_stack, "from-topic")
    events = customer_client("events", endpoint)
    bus_arn = events.create_event_bus(Name="orders-bus")["EventBusArn"]
    events.put_rule(Name="all", EventBusName="orders-bus", EventPattern=json.dumps({"source": ["roomcast"]}))
    events.put_targets(Rule="all", EventBusName="orders-bus", Targets=[{"Id": "q", "Arn": bus_queue_arn}])
    sns = customer_client("sns", endpoint)
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=topic_queue_arn)
    room = tenant_a.create_room()
    for kind, arn in (("eventbridge", bus_arn), ("sns", topic_arn)):
        destination = {"kind": kind, "arn": arn, "roleArn": role, "externalId": EXTERNAL_ID}
        created = tenant_a.post(
            f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "destination": destination}
        )
        assert created.status_code == 201, created.text

    # When
    message_id = _publish(tenant_a, room["id"], {"orderId": 3})

    # Then: the bus's event carries roomcast's body as its detail, the topic's message as its message
    bus_events = [json.loads(m["Body"]) for m in _received(empty_stack, bus_queue_url, 2)]
    (event,) = [e for e in bus_events if e["detail-type"] == "order.created"]
    assert (event["source"], event["detail"]["messageId"]) == ("roomcast", message_id)
    notes = [json.loads(json.loads(m["Body"])["Message"]) for m in _received(empty_stack, topic_queue_url, 2)]
    assert [n["payload"] for n in notes if n.get("messageId") == message_id] == [{"orderId": 3}]


def test_bad_destinations_are_refused_naming_the_field(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    good = {
        "kind": "sqs",
        "arn": "arn:aws:sqs:us-east-1:111111111111:q",
        "roleArn": "arn:aws:iam::111111111111:role/r",
        "externalId": EXTERNAL_ID,
    }
    cases = {
        "body.destination.kind": {**good, "kind": "kafka"},
        "body.destination.arn": {**good, "arn": "arn:aws-cn:sqs:cn-north-1:111111111111:q"},
        "body.destination.roleArn": {**good, "roleArn": "arn:aws:iam::111111111111:user/u"},
    }
    for field, destination in cases.items():
        response = tenant_a.post(
            f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "destination": destination}
        )
        assert response.status_code == 422, response.text
        named = {d["field"] for d in response.json()["error"]["details"]}
        assert field in named, named
    both = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions",
        {"type": "PUSH", "destination": good, "pushUrl": "http://127.0.0.1:9/x"},
    )
    assert both.status_code == 422, both.text
    assert tenant_a.get(f"/rooms/{room['id']}/subscriptions").json()["subscriptions"] == []
