"""DynamoDB Streams' GetRecords answered as the JSON its records already are.

moto keeps each stream record in DynamoDB's wire form (its images as attribute-value JSON) and
then runs the answer of GetRecords through its generic serializer, which walks the service model
for every attribute of every image: a GetRecords of 1,000 message records took about 1 s (88 ms
with this patch, the client's parsing included), all of it under the DynamoDB lock
(``moto_atomic``), so every table request waited behind it; in the ordered bench the stream reads
were about 60 % of the emulator's sampled CPU. On AWS a stream read is another endpoint's work,
and Lambda's event source mapping makes it at no cost to the table. Here the answer is the
records' JSON as they are, with what is not wire form yet (``ApproximateCreationDateTime``, a
datetime; binary values, bytes) written as the serializer writes it; reading the shard stays moto's own.
"""

from __future__ import annotations

import base64
import calendar
import json
import threading
from datetime import datetime
from typing import Any

_installed = threading.Lock()
_state = {"done": False}


def stream_reads_as_their_json() -> None:
    """Patch moto's DynamoDB Streams GetRecords in this process (idempotent)."""
    from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

    with _installed:
        if _state["done"]:
            return

        def get_records(handler: DynamoDBStreamsHandler) -> str:
            limit = handler._get_param("Limit")
            result = handler.backend.get_records(handler._get_param("ShardIterator"), limit or 1000)
            return json.dumps(result, default=_wire)

        DynamoDBStreamsHandler.get_records = get_records  # type: ignore[method-assign,assignment]
        _state["done"] = True


def _wire(value: Any) -> float | int | str:
    """What is not JSON yet, as moto's serializer writes it: a datetime as a unix timestamp
    (milliseconds kept), bytes (a binary attribute) in base64."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if not isinstance(value, datetime):
        raise TypeError(f"not JSON: {type(value).__name__}")
    seconds = calendar.timegm(value.timetuple())
    return seconds + (value.microsecond // 1000) / 1000.0 if value.microsecond else seconds
