"""Sends that do not scan the queue, for moto in-process.

moto's ``send_message`` reads ``queue.attributes`` to learn one attribute
(``ContentBasedDeduplication``), and that property computes every attribute of the queue, among
them ``ApproximateNumberOfMessages``, ``…Delayed`` and ``…NotVisible``: three scans of every
message in the queue, each message's clock read twice. A send thus cost time in proportion to the
queue's length (3.5 ms a message at 500 queued here, most of a ``SendMessageBatch`` of 10's 35 ms),
and the emulator, which serves the whole local stack from one Python process, was busy with it
while every function waited (bench/cost.py measures Lambda duration from those waits).

With this patch, while moto sends a message (``send_message``, which ``send_message_batch`` calls
for each entry) ``queue.attributes`` answers with just that attribute, computed the same way;
everywhere else (``GetQueueAttributes``, CloudFormation) it is moto's own. Nothing a client sees
changes.
"""

from __future__ import annotations

import threading
from typing import Any

_installed = threading.Lock()
_state = {"done": False}
_sending = threading.local()


def send_without_scanning_the_queue() -> None:
    """Patch moto's SQS in this process (idempotent)."""
    from moto.sqs.models import Queue, SQSBackend

    with _installed:
        if _state["done"]:
            return
        all_attributes = Queue.attributes.fget  # type: ignore[attr-defined]
        original_send = SQSBackend.send_message

        def attributes(queue: Queue) -> dict[str, Any]:
            if not getattr(_sending, "active", False):
                return all_attributes(queue)  # type: ignore[no-any-return]
            if not queue.fifo_queue:
                return {}  # a standard queue has no ContentBasedDeduplication attribute
            value = queue.content_based_deduplication  # type: ignore[attr-defined]
            return {"ContentBasedDeduplication": str(value).lower() if isinstance(value, bool) else value}

        def send_message(backend: SQSBackend, *args: Any, **kwargs: Any) -> Any:
            _sending.active = True
            try:
                return original_send(backend, *args, **kwargs)
            finally:
                _sending.active = False

        Queue.attributes = property(attributes)  # type: ignore[assignment,method-assign]
        SQSBackend.send_message = send_message  # type: ignore[method-assign,assignment]
        _state["done"] = True
