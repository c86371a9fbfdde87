"""The table's stream records of one invocation, side by side (ADR 0049): records of different
ordering keys run at once on a few threads, records of one key one after another in the shard's
order. A key step waits on a handful of AWS calls; one after another, a batch of a thousand keys'
steps took a thousand times as long. Steps of one key stay in order only to spare each other
refused writes: a key's head changes by conditional writes, so any order would keep the key's.

A record that fails is reported with every later record of its key (the stream hands them all back
from the first failure on), and the other keys' records go on; the partial batch response names
them as powertools' BatchProcessor would.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError, ExceptionInfo
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from roomcast.platform import logger

# At most as many as the SDK's connection pool (10 a client): more would queue for a connection.
STEP_THREADS: Final = 10
_STEPS = ThreadPoolExecutor(max_workers=STEP_THREADS, thread_name_prefix="key-step")


def lane_of(record: dict[str, Any]) -> str:
    """Which records must run one after another: those of one ordering key (a message stored with
    ordered destinations, an ordered delivery's record); any other record runs on its own."""
    image = record.get("dynamodb", {}).get("NewImage") or {}
    key = image.get("orderingKey", {}).get("S") or image.get("ordering", {}).get("M", {}).get("key", {}).get(
        "S"
    )
    tenant = image.get("tenantId", {}).get("S", "")
    if key:
        return f"key:{tenant}:{key}"
    return f"record:{record.get('dynamodb', {}).get('SequenceNumber', id(record))}"


def process_side_by_side(
    records: list[dict[str, Any]], handle: Callable[[DynamoDBRecord], None]
) -> dict[str, list[dict[str, str]]]:
    """Handle every record, each lane on its own thread; the partial batch response."""
    lanes: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        lanes.setdefault(lane_of(record), []).append(index)
    failed: set[int] = set()
    errors: list[ExceptionInfo] = []

    def run(indexes: list[int]) -> None:
        for position, index in enumerate(indexes):
            try:
                handle(DynamoDBRecord(records[index]))
            except Exception:
                logger.exception("a stream record failed; it and the later ones of its key go back")
                errors.append(sys.exc_info())
                failed.update(indexes[position:])
                return

    list(_STEPS.map(run, lanes.values()))
    if records and len(errors) == len(records):
        # As powertools does when every record raised: the invocation fails, so that Lambda splits
        # the batch (bisect). Records sent back unrun behind a failure of their key do not count.
        raise BatchProcessingError(f"all {len(records)} stream records of the batch failed", errors)
    return _failures([records[index] for index in sorted(failed)])


def every_record_failed(records: list[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """The partial batch response that hands the whole batch back."""
    return _failures(records)


def _failures(records: list[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
    return {
        "batchItemFailures": [
            {"itemIdentifier": str(record.get("dynamodb", {}).get("SequenceNumber", ""))}
            for record in records
        ]
    }
