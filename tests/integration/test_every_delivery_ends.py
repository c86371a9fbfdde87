"""Every delivery ends, whatever order deletions, publishes and workers run in (issue 22).

Each run draws a schedule at random (seeded): publishes (some with a subscription deleted between
their routing and their write, or between their write and their sends; some dying after the
write), deletions of subscriptions, push batches, PULL hand-outs and nacks, outbox tasks and stream
records, and waits, in simulated time. Then the bound passes (the outbox's settle time and the
room's retries), the workers drain what is left, and every delivery of every message must be
final: delivered, dead, expired or cleared. PUSH and PULL, with and without a failover."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import time_machine

from roomcast.catalog.store import CatalogTable
from roomcast.messages.sender import EnvelopeSender
from roomcast.messages.store import MessageTable
from roomcast_dev.stream_sources import matches, stream_record
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import EventSourceMapping, PushLanes, webhook_server
from tests.support import FakeLambdaContext, api_event

RUNS = 10
STEPS = 10
FINAL = {"delivered", "dead", "expired", "cleared"}
ACTIONS = (
    "publish",
    "publish-racing-a-deletion",
    "publish-that-dies",
    "delete",
    "push",
    "pull",
    "outbox",
    "wait",
)


class Died(BaseException):  # not an Exception: the process dies (powertools catches Exception only)
    """The publish function's process dies here."""


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"]) if response.get("body") else None


class StreamReader:
    """The table's stream as the outbox's trigger sees it: each record once, filtered."""

    def __init__(self, stack_model: StackModel) -> None:
        table = stack_model.tables["Table"]["TableName"]
        self.arn = boto3.client("dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
        self.streams = boto3.client("dynamodbstreams")
        (trigger,) = [t for t in stack_model.stream_triggers if t.function_id == "OutboxFunction"]
        self.patterns = trigger.filter_patterns
        self.iterators: dict[str, str] = {}

    def new_records(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for shard in self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]:
            shard_id = shard["ShardId"]
            if shard_id not in self.iterators:
                self.iterators[shard_id] = self.streams.get_shard_iterator(
                    StreamArn=self.arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON"
                )["ShardIterator"]
            answer = self.streams.get_records(ShardIterator=self.iterators[shard_id], Limit=1000)
            self.iterators[shard_id] = answer["NextShardIterator"]
            found += [
                stream_record(dict(r), self.arn, "us-east-1")
                for r in answer["Records"]
                if any(matches(r, p) for p in self.patterns)
            ]
        return found


class World:
    """One room, its subscriptions and the functions, driven step by step."""

    def __init__(
        self,
        stack_model: StackModel,
        function_handler: Callable[[str], Handler],
        monkeypatch: pytest.MonkeyPatch,
        webhooks: dict[str, str],
        chance: random.Random,
    ) -> None:
        self.chance = chance
        self.monkeypatch = monkeypatch
        self.manage = function_handler("ManagementFunction")
        self.publish_handler = function_handler("PublishFunction")
        self.pull_handler = function_handler("PullFunction")
        sqs = boto3.client("sqs")
        environment = stack_model.functions["OutboxFunction"].environment
        self.push = PushLanes(stack_model, function_handler("PushFunction"))
        self.outbox_handler = function_handler("OutboxFunction")
        self.outbox = EventSourceMapping(sqs, environment["OUTBOX_QUEUE_URL"], self.outbox_handler)
        self.stream = StreamReader(stack_model)
        policy = {"deliveryDelayMs": 1000, "deliveryDelayMultiplier": 2.0, "deliveryAttempts": 2}
        self.room = _call(self.manage, "POST", "/rooms", {"name": "races", **policy})["id"]
        self.subscriptions: dict[str, str] = {}  # id -> type, while not deleted
        pull = self._subscribe({"type": "PULL", "ackWaitMs": 5000})
        self._subscribe({"type": "PULL", "ackWaitMs": 5000})
        for url in webhooks.values():
            body: dict[str, Any] = {"type": "PUSH", "pushUrl": url, "timeoutMs": 1000}
            if chance.random() < 0.5:
                body["failoverSubscriptionId"] = pull  # a dead message goes to a PULL failover
            self._subscribe(body)
        self.published: list[str] = []

    def _subscribe(self, body: dict[str, Any]) -> str:
        created = _call(self.manage, "POST", f"/rooms/{self.room}/subscriptions", body)
        self.subscriptions[created["id"]] = body["type"]
        return str(created["id"])

    def delete_one(self) -> None:
        if not self.subscriptions:
            return
        subscription_id = self.chance.choice(sorted(self.subscriptions))
        path = f"/rooms/{self.room}/subscriptions/{subscription_id}"
        answer = self.manage(api_event("DELETE", path, tenant="acme"), FakeLambdaContext())
        if answer["statusCode"] == 204:
            del self.subscriptions[subscription_id]
        else:
            assert answer["statusCode"] == 409, answer  # still another one's failover

    def publish(self) -> None:
        body = {"eventType": "e", "eventVersion": "1", "payload": {"n": len(self.published)}}
        answer = _call(self.publish_handler, "POST", f"/rooms/{self.room}/messages", body)
        self.published.append(answer["messageId"])

    def publish_racing_a_deletion(self) -> None:
        """A deletion lands between the publish's routing read and its write, or between its
        write and its sends."""
        where = self.chance.choice(["after-routing", "after-write"])
        target: Any = CatalogTable.routing_view if where == "after-routing" else MessageTable.put_message
        name = "routing_view" if where == "after-routing" else "put_message"
        owner = CatalogTable if where == "after-routing" else MessageTable

        def racing(*args: Any, **kwargs: Any) -> Any:
            result = target(*args, **kwargs)
            self.monkeypatch.setattr(owner, name, target)
            self.delete_one()
            return result

        self.monkeypatch.setattr(owner, name, racing)
        self.publish()
        self.monkeypatch.setattr(owner, name, target)

    def publish_that_dies(self) -> None:
        """The publish stores its message and dies before sending anything."""

        def dying(*args: Any, **kwargs: Any) -> Any:
            raise Died

        with self.monkeypatch.context() as patched:
            patched.setattr(EnvelopeSender, "try_send", dying)
            with pytest.raises(Died):
                self.publish()
        stored = [
            m["messageId"] for m in _call(self.manage, "GET", f"/rooms/{self.room}/messages")["messages"]
        ]
        self.published += [m for m in stored if m not in self.published]

    def pull(self, answer: str) -> None:
        pulls = [s for s, kind in self.subscriptions.items() if kind == "PULL"]
        if not pulls:
            return
        subscription_id = self.chance.choice(pulls)
        base = f"/rooms/{self.room}/subscriptions/{subscription_id}"
        got = _call(self.pull_handler, "POST", f"{base}/pull", {"maxMessages": 10})
        receipts = [m["receipt"] for m in got["messages"]]
        if receipts and answer != "keep":
            _call(self.pull_handler, "POST", f"{base}/{answer}", {"receipts": receipts})

    def run_outbox(self) -> None:
        while self.outbox.poll_once():
            pass
        records = self.stream.new_records()
        if records:
            self.outbox_handler({"Records": records}, FakeLambdaContext())

    def statuses(self) -> dict[tuple[str, str], str]:
        found = {}
        for message_id in self.published:
            message = _call(self.manage, "GET", f"/rooms/{self.room}/messages/{message_id}")
            for delivery in message["deliveries"]:
                found[(message_id, delivery["subscriptionId"])] = delivery["status"]
        return found


@contextmanager
def _simulated_time() -> Iterator[Any]:
    with time_machine.travel(datetime(2026, 11, 22, 8, 0, tzinfo=UTC), tick=False) as clock:
        yield clock


@pytest.mark.parametrize("seed", range(RUNS))
def test_every_delivery_ends_whatever_order_deletions_publishes_and_workers_run_in(
    seed: int,
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chance = random.Random(seed)
    settle_s = int(stack_model.functions["OutboxFunction"].environment["OUTBOX_SETTLE_SECONDS"])
    with (
        _simulated_time() as clock,
        webhook_server([500, 200]) as flaky,
        webhook_server([500]) as failing,
    ):
        # Given: a room retrying twice after 1 s x2; two PULL and two PUSH subscriptions, the PUSH
        # ones perhaps failing over to the first PULL one
        world = World(
            stack_model,
            function_handler,
            monkeypatch,
            {"flaky": flaky.url(), "failing": failing.url()},
            chance,
        )

        # When: a random schedule of publishes, deletions and workers
        schedule = [chance.choice(ACTIONS) for _ in range(STEPS)]
        for action in schedule:
            if action == "publish":
                world.publish()
            elif action == "publish-racing-a-deletion":
                world.publish_racing_a_deletion()
            elif action == "publish-that-dies":
                world.publish_that_dies()
            elif action == "delete":
                world.delete_one()
            elif action == "push":
                world.push.poll_once()
            elif action == "pull":
                world.pull(chance.choice(["ack", "nack", "keep"]))
            elif action == "outbox":
                world.run_outbox()
            else:
                clock.shift(chance.choice([1, 5, 30, 90]))

        # Then: once the bound has passed (the settle time, after which checks and late sweeps run;
        # the room's retries and the ack waits are shorter) and the workers have run, every
        # delivery is final
        for _ in range(4):
            clock.shift(settle_s + 1)
            world.run_outbox()
            while world.push.poll_once():
                pass
            for _ in world.subscriptions:
                world.pull("ack")
        statuses = world.statuses()
        left = {key: status for key, status in statuses.items() if status not in FINAL}
        assert left == {}, f"seed {seed}, schedule {schedule}: not final after the bound: {left}"
        print(
            f"seed {seed}: {len(world.published)} messages, schedule {schedule}, {sorted(statuses.values())}"
        )
