"""In-process push delivery under simulated time: a webhook server on loopback, the push handler
called the way Lambda's event source mapping calls it, and a clock that jumps to the moment the
next SQS message becomes visible (SQS delays are known from the sends the function makes)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from roomcast.dal.sender import EnvelopeSender, Outgoing
from roomcast_dev.event_sources import failed_message_ids, sqs_record
from tests.support import FakeLambdaContext

PUSH_QUEUE_VISIBILITY_SECONDS = 360


@dataclass
class Received:
    at: float  # time.time() when it arrived (simulated when the clock is)
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


@dataclass
class Webhook:
    """Answers from a script of statuses (the last one repeats) and records every request."""

    statuses: list[int]
    requests: list[Received] = field(default_factory=list)
    url: str = ""

    def answer(self) -> int:
        index = min(len(self.requests) - 1, len(self.statuses) - 1)
        return self.statuses[index]

    def answer_for(self, request: Received) -> int:
        """The status the server gave ``request``."""
        index = min(self.requests.index(request), len(self.statuses) - 1)
        return self.statuses[index]


@contextmanager
def webhook_server(statuses: list[int]) -> Iterator[Webhook]:
    webhook = Webhook(statuses)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            webhook.requests.append(
                Received(time.time(), {k.lower(): v for k, v in self.headers.items()}, body)
            )
            self.send_response(webhook.answer())
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # the default 5 drops SYNs of a burst: a 1 s retransmit

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    webhook.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        yield webhook
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Send:
    at: float
    queue_url: str
    delay_seconds: int
    body: str


class SendSpy:
    """Records every envelope the functions send (time, queue, delay) by wrapping EnvelopeSender.send."""

    def __init__(self) -> None:
        self.sends: list[Send] = []

    def install(self, monkeypatch: Any) -> None:
        original = EnvelopeSender.send
        spy = self

        def send(sender: EnvelopeSender, outgoing: Any) -> None:
            original(sender, outgoing)
            for item in outgoing:
                assert isinstance(item, Outgoing)
                body = item.envelope if isinstance(item.envelope, str) else item.envelope.to_json()
                spy.sends.append(Send(time.time(), item.queue_url, item.delay_seconds, body))

        monkeypatch.setattr(EnvelopeSender, "send", send)


class EventSourceMapping:
    """Receive from the push queue, invoke the handler, delete what succeeded — like Lambda."""

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
        event = {
            "Records": [
                sqs_record(m, "arn:aws:sqs:us-east-1:123456789012:push", "us-east-1") for m in messages
            ]
        }
        result = self.handler(event, FakeLambdaContext())
        if crash is not None:
            crash()
        kept = failed_message_ids(result, {m["MessageId"] for m in messages}) or set()
        for message in messages:
            if message["MessageId"] not in kept:
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return len(messages)
