"""Metrics function: the table's stream (messages, their ``FIRST`` items and delivery records; the
filter in template.yaml) read in tumbling windows, its facts added up in the window's state and
written when the window closes (roomcast.metrics; docs/decisions/0046-metrics-from-the-table-stream.md).

Each invocation answers the window's state; the last one of a window (or of a state grown too big)
writes it. A record it cannot read is logged and skipped, never retried forever: one malformed
item must not stop the metrics of every tenant behind it on its shard."""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Final

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.metrics import Change, Count, MetricsTable, Tally, facts_of
from roomcast.platform import METRICS_NAMESPACE, SERVICE_NAME, items, load_settings, logger, metrics

# Lambda ends a window early whose state passes 1 MB; a tally is written before that.
MAX_STATE_BYTES: Final = 512 * 1024
# The shard of an event without one (a window always names it; this is for a test's event).
NO_SHARD: Final = "shard"


@cache
def metrics_table() -> MetricsTable:
    return MetricsTable(load_settings().table_name)


def change_of(record: dict[str, Any]) -> Change:
    stream = record.get("dynamodb", {})
    old, new = stream.get("OldImage"), stream.get("NewImage")
    created_s = float(stream.get("ApproximateCreationDateTime") or 0)
    return Change(
        items.from_attributes(old) if old else None,
        items.from_attributes(new) if new else None,
        int(created_s * 1000),
    )


def tally_of(event: dict[str, Any]) -> Tally:
    """The window's tally so far, with this invocation's records added."""
    tally = Tally.from_state(event.get("state"))
    skipped = 0
    for record in event.get("Records") or []:
        sequence = str(record.get("dynamodb", {}).get("SequenceNumber", "0"))
        try:
            found = facts_of(change_of(record))
        except (KeyError, ValueError, TypeError) as error:
            skipped += 1
            keys = record.get("dynamodb", {}).get("Keys")
            logger.exception("a stream record the metrics cannot read: skipped", extra={"keys": keys})
            del error
            found = []
        tally.add(found, sequence)
    if skipped:
        metrics.add_metric(name="MetricsRecordsSkipped", unit=MetricUnit.Count, value=skipped)
    return tally


# What each tenant's EMF line reports (CloudWatch metrics with the dimension ``tenant``: a few per
# tenant, never per subscription; the totals have the ``service`` dimension only).
TENANT_METRICS: Final = (Count.ATTEMPTS, Count.FAILED_ATTEMPTS, Count.DELIVERED, Count.DEAD, Count.EXPIRED)


def report_tenants(tally: Tally) -> None:
    """The window's counts to CloudWatch (EMF): each tenant's, and all tenants' added."""
    for tenant_id, counts in sorted(tally.tenant_counts().items()):
        line = EphemeralMetrics(namespace=METRICS_NAMESPACE, service=SERVICE_NAME)
        line.add_dimension(name="tenant", value=tenant_id)
        for count in TENANT_METRICS:
            line.add_metric(name=metric_name(count), unit=MetricUnit.Count, value=counts[count.value])
            metrics.add_metric(name=metric_name(count), unit=MetricUnit.Count, value=counts[count.value])
        line.flush_metrics()


def metric_name(count: Count) -> str:
    """``DeliveriesFailedAttempts`` for ``failedAttempts``."""
    return f"Deliveries{count.value[0].upper()}{count.value[1:]}"


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    tally = tally_of(event)
    state = tally.to_state()
    closing = bool(event.get("isFinalInvokeForWindow") or event.get("isWindowTerminatedEarly"))
    if closing or len(json.dumps(state)) > MAX_STATE_BYTES:
        metrics_table().flush(tally, str(event.get("shardId") or NO_SHARD))
        report_tenants(tally)
        metrics.add_metric(name="MetricsItemsWritten", unit=MetricUnit.Count, value=len(tally.buckets))
        state = Tally().to_state()
    return {"state": state, "batchItemFailures": []}
