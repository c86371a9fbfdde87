"""Sends and receives that do not scan the queue, for moto in-process.

moto's ``send_message`` reads ``queue.attributes`` to learn one attribute
(``ContentBasedDeduplication``), and that property computes every attribute of the queue, among
them ``ApproximateNumberOfMessages``, ``…Delayed`` and ``…NotVisible``: three scans of every
message in the queue, each message's clock read twice. A send thus cost time in proportion to the
queue's length (3.5 ms a message at 500 queued here, most of a ``SendMessageBatch`` of 10's 35 ms),
and the emulator, which serves the whole local stack from one Python process, was busy with it
while every function waited (bench/cost.py measures Lambda duration from those waits).

Its ``receive_message`` does the same for every message it hands out: it checks the message
against the queue's retention period through ``get_queue_attributes(["MessageRetentionPeriod"])``,
which reads ``queue.attributes`` three times — nine scans of the queue per message received. A
receive of 10 from 200 queued messages spent ~18,000 clock reads on it, most of a bare
``ReceiveMessage``'s time (a profile of the PULL bench over HTTP: ~11 s of the emulator's 53).

With this patch, while moto sends a message (``send_message``, which ``send_message_batch`` calls
for each entry) or receives (``receive_message``), ``queue.attributes`` answers with just the
attribute it reads, computed the same way; everywhere else (``GetQueueAttributes``,
CloudFormation) it is moto's own. Nothing a client sees changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

_installed = threading.Lock()
_state = {"done": False}
_call = threading.local()  # ``in_progress``: "send" or "receive" while moto does one in this thread


def sqs_calls_without_scanning_the_queue() -> None:
    """Patch moto's SQS in this process (idempotent)."""
    from moto.sqs.models import Queue, SQSBackend

    with _installed:
        if _state["done"]:
            return
        all_attributes = Queue.attributes.fget  # type: ignore[attr-defined]
        original_send = SQSBackend.send_message
        original_receive = SQSBackend.receive_message

        def attributes(queue: Queue) -> dict[str, Any]:
            call = getattr(_call, "in_progress", None)
            if call is None:
                return all_attributes(queue)  # type: ignore[no-any-return]
            answer: dict[str, Any] = {}
            if call == "receive":
                answer["MessageRetentionPeriod"] = queue.message_retention_period  # type: ignore[attr-defined]
            if queue.fifo_queue:  # a send reads it; so does a receive moving a message to a FIFO DLQ
                value = queue.content_based_deduplication  # type: ignore[attr-defined]
                answer["ContentBasedDeduplication"] = str(value).lower() if isinstance(value, bool) else value
            return answer

        Queue.attributes = property(attributes)  # type: ignore[assignment,method-assign]
        SQSBackend.send_message = _marked("send", original_send)  # type: ignore[method-assign]
        SQSBackend.receive_message = _marked("receive", original_receive)  # type: ignore[method-assign]
        _state["done"] = True


def _marked(call: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method``, with ``call`` marked in progress in its thread while it runs."""

    def marked(backend: Any, *args: Any, **kwargs: Any) -> Any:
        _call.in_progress = call
        try:
            return method(backend, *args, **kwargs)
        finally:
            _call.in_progress = None

    return marked
