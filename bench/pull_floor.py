"""The floor of a pull acking the ten before, on this emulator: the calls a cycle cannot do without
while it keeps PULL's guarantees (ADR 0026), made raw with the parameters the pull handler sent —
no handler, no validation, no receipts, no delivery log, no HTTP. Drained like roomcast's PULL,
beside bare SQS, it bounds what any pull handler could reach here.

- **Three calls**: `ReceiveMessage` beside the ack's conditional record writes
  (`BatchExecuteStatement` of ten `INSERT`s), then `DeleteMessageBatch` — the ack's record before
  the queue's delete.
- **Four calls**: the same after the room's `GetItem` — the read before any side effect.

The delivery log's `PutRecordBatch` is left out of both, though "every attempt is logged" needs a
call somewhere.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

RECORDS = "BatchExecuteStatement"
FLOOR_OPERATIONS = ("GetItem", "ReceiveMessage", RECORDS, "DeleteMessageBatch")


@dataclass(frozen=True)
class RawCall:
    """One request's botocore client and parameters, as the handler sent them."""

    client: Any
    parameters: dict[str, Any]


def floor_drain(calls: dict[str, RawCall], *, room_read: bool) -> Callable[[], int]:
    """A drain of the pulled queue (the messages it took) by the floor's calls: ``calls`` holds one
    of each of FLOOR_OPERATIONS, captured from a pull acking ten. Each cycle's records are ten new
    items (first attempts' records, as most acks write), beside the receive, as the handler runs
    them; the delete waits for both."""
    receive, records, delete = calls["ReceiveMessage"], calls[RECORDS], calls["DeleteMessageBatch"]
    room = calls["GetItem"]

    def drain() -> int:
        taken = 0
        with ThreadPoolExecutor(max_workers=2) as pool:
            while True:
                if room_read:
                    room.client.get_item(**room.parameters)
                inserts = new_records(records.parameters)
                written = pool.submit(records.client.batch_execute_statement, **inserts)
                received = receive.client.receive_message(**receive.parameters).get("Messages", [])
                written.result()
                if not received:
                    return taken
                queue_url = delete.parameters["QueueUrl"]
                delete.client.delete_message_batch(QueueUrl=queue_url, Entries=delete_entries(received))
                taken += len(received)

    return drain


def new_records(parameters: dict[str, Any]) -> dict[str, Any]:
    """The captured INSERTs with a partition key of a new message each: they write, as a first
    attempt's record does, instead of meeting the captured item (``DuplicateItem``)."""
    statements = []
    for statement in parameters["Statements"]:
        partition, *values = statement["Parameters"]
        tenant = partition["S"].split("#MSG#")[0]
        new_partition = {"S": f"{tenant}#MSG#msg_{uuid.uuid4().hex}"}
        statements.append({**statement, "Parameters": [new_partition, *values]})
    return {**parameters, "Statements": statements}


def delete_entries(received: list[dict[str, Any]]) -> list[dict[str, str]]:
    """``DeleteMessageBatch`` entries for the messages a ``ReceiveMessage`` answered with."""
    return [{"Id": str(i), "ReceiptHandle": message["ReceiptHandle"]} for i, message in enumerate(received)]
