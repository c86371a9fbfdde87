"""In-process push delivery under simulated time: a webhook server on loopback, the push handler
called the way Lambda's event source mapping calls it, and a clock that jumps to the moment the
next SQS message becomes visible (SQS delays are known from the sends the function makes)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3

from roomcast.messages.ports import Outgoing
from roomcast.messages.sender import EnvelopeSender
from roomcast_dev.event_sources import failed_message_ids, sqs_record
from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID, LOCAL_REGION
from roomcast_dev.stream_sources import matches, stream_record
from roomcast_dev.template import StackModel
from roomcast_dev.webhook_receiver import WebhookReceiver, statuses
from tests.support import FakeLambdaContext

PUSH_QUEUE_VISIBILITY_SECONDS = 360


def webhook_server(codes: list[int]) -> WebhookReceiver:
    """A webhook receiver answering the n-th request with the n-th status (the last repeats), its
    arrivals stamped with ``time.time()`` (the simulated clock when one is running)."""
    return WebhookReceiver(statuses(*codes), clock=time.time)


@dataclass
class Send:
    at: float
    queue_url: str
    delay_seconds: int
    body: str


class SendSpy:
    """Records every envelope the functions send (time, queue, delay) by wrapping EnvelopeSender.send;
    bodies that are no envelope (the outbox's tasks) are kept apart, in ``other``."""

    def __init__(self) -> None:
        self.sends: list[Send] = []
        self.other: list[Send] = []

    def install(self, monkeypatch: Any) -> None:
        original = EnvelopeSender.send
        spy = self

        def send(sender: EnvelopeSender, outgoing: Any) -> None:
            original(sender, outgoing)
            for item in outgoing:
                assert isinstance(item, Outgoing)
                if isinstance(item.envelope, str):
                    spy.other.append(Send(time.time(), item.queue_url, item.delay_seconds, item.envelope))
                    continue
                body = item.envelope.to_json()
                spy.sends.append(Send(time.time(), item.queue_url, item.delay_seconds, body))

        monkeypatch.setattr(EnvelopeSender, "send", send)


def queue_arn(queue_url: str) -> str:
    """The queue's ARN as the event source mapping stamps its records (the push function tells its
    lanes apart by the name that ends it)."""
    return f"arn:aws:sqs:{LOCAL_REGION}:{LOCAL_ACCOUNT_ID}:{queue_url.rstrip('/').rpartition('/')[2]}"


class EventSourceMapping:
    """Receive from a queue, invoke the handler, delete what succeeded — like Lambda."""

    def __init__(self, sqs: Any, queue_url: str, handler: Callable[[dict[str, Any], Any], Any]) -> None:
        self.sqs = sqs
        self.queue_url = queue_url
        self.handler = handler
        self.invocations = 0

    def poll_once(self, crash: Callable[[], None] | None = None) -> int:
        """One receive + invoke; returns how many messages were received. ``crash`` runs after the
        handler and before the deletes (an exception there leaves the whole batch on the queue)."""
        messages = self.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=10,
            VisibilityTimeout=PUSH_QUEUE_VISIBILITY_SECONDS,
            MessageSystemAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        self.invocations += 1
        event = {"Records": [sqs_record(m, queue_arn(self.queue_url), "us-east-1") for m in messages]}
        result = self.handler(event, FakeLambdaContext())
        if crash is not None:
            crash()
        kept = failed_message_ids(result, {m["MessageId"] for m in messages}) or set()
        for message in messages:
            if message["MessageId"] not in kept:
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return len(messages)


class PushLanes:
    """The push function's two event source mappings, as the template wires them: the push queue
    (the fast lane) and the slow lane's queue, which a request outlasting the fast lane's budget in
    real time — a loaded machine's — hands its delivery to (docs/decisions/0031-push-lanes.md).
    Polling only the first would strand such a delivery."""

    def __init__(self, stack_model: StackModel, push: Callable[[dict[str, Any], Any], Any]) -> None:
        environment = stack_model.functions["PushFunction"].environment
        self.sqs = boto3.client("sqs")
        self.queue_urls = (environment["PUSH_QUEUE_URL"], environment["SLOW_PUSH_QUEUE_URL"])
        self.fast, self.slow = (EventSourceMapping(self.sqs, url, push) for url in self.queue_urls)
        poison_name = stack_model.queues["PushPoisonQueue"]["QueueName"]
        self.poison_queue_url = self.sqs.get_queue_url(QueueName=poison_name)["QueueUrl"]

    def parked(self) -> list[dict[str, Any]]:
        """The envelopes parked in the poison queue (the push function failed on each 10 times:
        its redrive policy), as bodies; they stay there."""
        received: list[Any] = []
        while messages := self.sqs.receive_message(
            QueueUrl=self.poison_queue_url, MaxNumberOfMessages=10, VisibilityTimeout=60
        ).get("Messages", []):
            received += messages
        for message in received:  # visible again, as they were
            self.sqs.change_message_visibility(
                QueueUrl=self.poison_queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
            )
        return [json.loads(message["Body"]) for message in received]

    def redrive(self) -> int:
        """What an operator does once the push function's failure is fixed (ADR 0011): move every
        envelope parked in the poison queue back to the push queue (SQS's redrive, a fresh receive
        count); how many moved."""
        moved = 0
        while messages := self.sqs.receive_message(
            QueueUrl=self.poison_queue_url, MaxNumberOfMessages=10
        ).get("Messages", []):
            for message in messages:
                self.sqs.send_message(QueueUrl=self.queue_urls[0], MessageBody=message["Body"])
                self.sqs.delete_message(
                    QueueUrl=self.poison_queue_url, ReceiptHandle=message["ReceiptHandle"]
                )
                moved += 1
        return moved

    def poll_once(self, crash: Callable[[], None] | None = None) -> int:
        """One receive + invoke from the fast lane, else from the slow one; how many were received."""
        return self.fast.poll_once(crash) or self.slow.poll_once(crash)

    def idle(self) -> bool:
        """Nothing on either lane's queue: visible, in flight or delayed."""
        return all(queue_empty(self.sqs, url) for url in self.queue_urls)


def run_outbox_tasks(stack_model: StackModel, outbox: Callable[[dict[str, Any], Any], Any]) -> int:
    """Run the outbox function on its queue until no task is visible (jobs send their next step
    there): how many tasks ran."""
    queue_url = stack_model.functions["OutboxFunction"].environment["OUTBOX_QUEUE_URL"]
    mapping = EventSourceMapping(boto3.client("sqs"), queue_url, outbox)
    ran = 0
    while taken := mapping.poll_once():
        ran += taken
    return ran


class OutboxStream:
    """The table's stream as the outbox's event source mapping reads it: each new record its
    filters pass, once, in order."""

    def __init__(self, stack_model: StackModel, outbox: Callable[[dict[str, Any], Any], Any]) -> None:
        table_name = stack_model.tables["Table"]["TableName"]
        self.streams = boto3.client("dynamodbstreams")
        self.arn = boto3.client("dynamodb").describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
        (trigger,) = [t for t in stack_model.stream_triggers if t.function_id == "OutboxFunction"]
        self.patterns = trigger.filter_patterns
        self.outbox = outbox
        self.seen: set[str] = set()
        self.failures_allowed = False

    def run(self) -> int:
        """Hand the outbox function the records not handed yet; how many."""
        fresh = []
        for shard in self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]:
            iterator = self.streams.get_shard_iterator(
                StreamArn=self.arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
            for record in self.streams.get_records(ShardIterator=iterator, Limit=1000)["Records"]:
                number = record["dynamodb"]["SequenceNumber"]
                if number not in self.seen and any(matches(record, p) for p in self.patterns):
                    self.seen.add(number)
                    fresh.append(stream_record(dict(record), self.arn, "us-east-1"))
        if fresh:
            try:
                result = self.outbox({"Records": fresh}, FakeLambdaContext())
            except BaseException:  # the invocation died: the stream hands the whole batch back
                self.seen -= {r["dynamodb"]["SequenceNumber"] for r in fresh}
                raise
            failed = [f["itemIdentifier"] for f in result["batchItemFailures"]]
            assert failed == [] or self.failures_allowed, failed
            if failed:  # the stream hands the batch back from the first failed record on
                first = next(i for i, r in enumerate(fresh) if r["dynamodb"]["SequenceNumber"] in failed)
                self.seen -= {r["dynamodb"]["SequenceNumber"] for r in fresh[first:]}
        return len(fresh)


def queue_empty(sqs: Any, queue_url: str) -> bool:
    attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    return all(
        attributes[name] == "0"
        for name in (
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        )
    )
