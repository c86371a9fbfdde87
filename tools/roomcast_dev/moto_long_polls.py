"""Long polls for moto in-process: atomic receives that end with their queue.

Lambda's SQS pollers long-poll (``WaitTimeSeconds`` 20); so do the local stack's
(``roomcast_dev.event_sources``). moto answers a long poll by waiting on the queue object it found
when the call began. When that queue is deleted, or the emulator is reset (the tests reset the
local stack between tests), the poll would wait out its 20 s on a queue nobody can send to any
more, and the poller would miss the new queue's messages for that long. With this patch a deleted
or reset queue wakes the polls waiting on it, and they answer ``QueueDoesNotExist``, as SQS does
for a queue deleted under a poll.

And moto's receive is not atomic: two long polls woken by the same send can both take the same
message (each marks it received). SQS hands a message to one receive; so does this patch: a
queue's receives take messages one at a time, and wait for more outside that lock.
"""

from __future__ import annotations

import threading
import time
from typing import Any

_installed = threading.Lock()
_state = {"done": False}
_CLOSED = "_roomcast_closed"


def end_long_polls_with_their_queue() -> None:
    """Patch moto's SQS in this process (idempotent)."""
    from moto.core.base_backend import BaseBackend
    from moto.sqs.exceptions import QueueDoesNotExist
    from moto.sqs.models import Queue, SQSBackend

    with _installed:
        if _state["done"]:
            return

        def wait_for_messages(queue: Queue, timeout: float) -> None:
            with queue._messages_lock:
                queue._messages_lock.wait_for(
                    lambda: bool(queue.messages) or getattr(queue, _CLOSED, False), timeout=timeout
                )
            if getattr(queue, _CLOSED, False):
                raise QueueDoesNotExist()

        original_receive = SQSBackend.receive_message
        original_delete = SQSBackend.delete_queue
        receiving = threading.Lock()

        def receive_message(
            backend: SQSBackend,
            queue_name: str,
            count: int,
            wait_seconds_timeout: int,
            visibility_timeout: int,
            message_attribute_names: list[str] | None = None,
        ) -> list[Any]:
            deadline = time.monotonic() + wait_seconds_timeout
            # moto resolves a receive without VisibilityTimeout to the queue's when the call comes
            # in; SQS applies the queue's when it hands the messages out (a long poll may have
            # started before the queue's timeout was changed).
            queue_default = getattr(backend.get_queue(queue_name), "visibility_timeout", None)
            while True:
                queue = backend.get_queue(queue_name)
                visibility = visibility_timeout
                if visibility_timeout == queue_default:
                    visibility = getattr(queue, "visibility_timeout", visibility_timeout)
                with receiving:  # one receive takes messages at a time, as SQS hands each to one
                    taken: list[Any] = original_receive(
                        backend, queue_name, count, 0, visibility, message_attribute_names
                    )
                remaining = deadline - time.monotonic()
                if taken or remaining <= 0:
                    return taken
                # At most 1 s: a delayed message becomes visible without a notify.
                queue.wait_for_messages(min(1, remaining))  # type: ignore[arg-type]

        def delete_queue(backend: SQSBackend, queue_name: str) -> None:
            queue = backend.queues.get(queue_name)
            original_delete(backend, queue_name)
            if queue is not None:
                _close(queue)

        def reset(backend: SQSBackend) -> None:
            for queue in list(getattr(backend, "queues", {}).values()):
                _close(queue)
            BaseBackend.reset(backend)

        Queue.wait_for_messages = wait_for_messages  # type: ignore[method-assign,assignment]
        SQSBackend.receive_message = receive_message  # type: ignore[method-assign,assignment]
        SQSBackend.delete_queue = delete_queue  # type: ignore[method-assign,assignment]
        SQSBackend.reset = reset  # type: ignore[method-assign,assignment]
        _state["done"] = True


def _close(queue: Any) -> None:
    with queue._messages_lock:
        setattr(queue, _CLOSED, True)
        queue._messages_lock.notify_all()


def end_every_long_poll() -> None:
    """Wake every long poll waiting in this process's moto (the local stack is stopping)."""
    from moto.sqs.models import sqs_backends

    for account in list(sqs_backends.values()):
        for backend in list(account.values()):
            for queue in list(getattr(backend, "queues", {}).values()):
                _close(queue)
