"""Outbox function, with two triggers (template.yaml):

- the table's stream, filtered to message items marked ``unsent``, messages stored with ordered
  destinations and ordered deliveries' records that ended (roomcast.ordering.sends);
- its own queue (OutboxQueue): publish checks, sweeps, jobs and the releases of scheduled messages
  (roomcast.outbox.tasks).

Partial batch responses for both, so one record that still fails is retried alone while the
others of the batch are done. The stream's records run side by side, one lane per ordering key
(outbox_worker.side_by_side)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from outbox_worker.dependencies import delivery_log, job_runner, ordered_sends, outbox_service, probe_service
from outbox_worker.service import OutboxResult
from outbox_worker.side_by_side import every_record_failed, process_side_by_side
from roomcast.messages import (
    DELIVERY_PREFIX,
    MESSAGE_SORT_KEY,
    ORDERED_ATTRIBUTE,
    OUTBOX_ATTRIBUTE,
    OUTBOX_UNSENT,
    delivery_from_item,
    message_from_item,
)
from roomcast.ordering import OrderedSends
from roomcast.outbox import Probe, PublishCheck, Release, RunJob, task_from_json
from roomcast.platform import items, logger, metrics

queue_processor = BatchProcessor(event_type=EventType.SQS)


def _count(result: OutboxResult) -> None:
    metrics.add_metric(name="OutboxEnvelopesSent", unit=MetricUnit.Count, value=len(result.sent))
    metrics.add_metric(name="OutboxDeliveriesCleared", unit=MetricUnit.Count, value=len(result.cleared))


def stream_record_handler(record: DynamoDBRecord, sends: OrderedSends | None = None) -> None:
    """A message item marked unsent, or inserted with ordered destinations; or an ordered
    delivery's record that ended, or that waits in an ordered failover's line (the filters in
    template.yaml pass only these). ``sends``: the invocation's (each subscription read once, its
    envelopes held back)."""
    ordered = sends or ordered_sends()
    new_image = record.raw_event.get("dynamodb", {}).get("NewImage") or {}
    sort_key = new_image.get("SK", {}).get("S", "")
    if sort_key.startswith(DELIVERY_PREFIX):
        sent = ordered.recorded(delivery_from_item(items.from_attributes(new_image)))
        _count_ordered(sent)
        return
    if new_image.get(OUTBOX_ATTRIBUTE, {}).get("S") == OUTBOX_UNSENT:
        result = outbox_service().send_unsent(new_image)
        _count(result)
        logger.info(
            "outbox sent a message's unsent envelopes", extra={"sent": result.sent, "cleared": result.cleared}
        )
    inserted = record.raw_event.get("eventName") == "INSERT"
    if inserted and sort_key == MESSAGE_SORT_KEY and ORDERED_ATTRIBUTE in new_image:
        _count_ordered(ordered.arrived(message_from_item(items.from_attributes(new_image))))


def _count_ordered(sent: list[str]) -> None:
    metrics.add_metric(name="OrderedEnvelopesSent", unit=MetricUnit.Count, value=len(sent))


def _report(result: OutboxResult, log: Callable[..., None], text: str, **about: object) -> None:
    """Count what a task sent and cleared, and log it when it did anything."""
    _count(result)
    if result.sent or result.cleared:
        log(text, extra={**about, "sent": result.sent, "cleared": result.cleared})


def queue_record_handler(record: SQSRecord) -> None:
    task = task_from_json(record.body)
    if isinstance(task, RunJob):
        job = job_runner().run(task, int(record.attributes.approximate_receive_count))
        if job is not None:
            logger.info(
                "ran a job",
                extra={"job": job.id, "kind": job.kind.value, "state": job.state.value, "counts": job.counts},
            )
        return
    if isinstance(task, Probe):
        outcome = probe_service().probe(task)
        logger.info(
            "recovery probe", extra={"subscriptionId": task.subscription_id, "outcome": outcome.value}
        )
        return
    if isinstance(task, Release):
        _report(
            outbox_service().release(task),
            logger.info,
            "released a scheduled message",
            messageId=task.message_id,
        )
        return
    if isinstance(task, PublishCheck):
        text = "a publish died before its sends were done; the outbox finished them"
        _report(outbox_service().check_publish(task), logger.warning, text, request=task.request_id)
        return
    ended = outbox_service().sweep(task)
    metrics.add_metric(name="OutboxDeliveriesCleared", unit=MetricUnit.Count, value=ended)
    logger.info("swept deleted subscriptions", extra={"room": task.room_id, "ended": ended})


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    records = event.get("Records") or [{}]
    from_queue = records[0].get("eventSource") == "aws:sqs"
    try:
        if from_queue:
            return dict(
                process_partial_response(
                    event=event,
                    record_handler=queue_record_handler,
                    processor=queue_processor,
                    context=context,
                )
            )
        sends = ordered_sends().for_invocation()
        answer = process_side_by_side(records, partial(stream_record_handler, sends=sends))
        try:
            sends.send_held()  # before the answer
        except Exception:
            # Every record goes back: their steps find their own claims and send again.
            logger.exception("the ordered envelopes held back could not be sent; the batch goes back")
            return every_record_failed(records)
        return answer
    finally:
        delivery_log().flush(context.aws_request_id)
