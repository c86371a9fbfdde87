"""Push function: SQS-triggered, partial batch responses. The same code reads the push queue (the
fast lane, PushFunction) and the slow lane's (SlowPushFunction): a record's lane is the queue it
came from (push_worker.lanes; docs/decisions/0031-push-lanes.md).

The batch's envelopes are parsed once; their rooms and subscriptions are read once; then each
envelope is delivered (push_worker.delivery) concurrently (powertools AsyncBatchProcessor; each
delivery runs in a worker thread), so one slow endpoint does not hold back the others. A record
whose handling raises (an AWS outage, say) is reported as a batch item failure: SQS hands it back
after the visibility timeout, and after 10 receives it moves to the poison queue. The batch's
``delivered`` records are written before the batch is acknowledged; the delivery log at the same
time (it never fails a batch).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from push_worker.dependencies import delivery_log, push_delivery
from roomcast.log import DeliveryOutcome
from roomcast.messages import Envelope, EnvelopeError
from roomcast.platform import logger, metrics

OUTCOME_METRICS = {
    DeliveryOutcome.DELIVERED: "WebhooksDelivered",
    DeliveryOutcome.RETRY: "WebhookRetriesScheduled",
    DeliveryOutcome.HOP: "EnvelopeHops",
    DeliveryOutcome.HELD: "EnvelopesHeld",
    DeliveryOutcome.SLOW_LANE: "EnvelopesToSlowLane",
    DeliveryOutcome.CLEARED: "WebhooksCleared",
    DeliveryOutcome.SUPERSEDED: "EnvelopesSuperseded",
    DeliveryOutcome.DEAD: "WebhooksDead",
    DeliveryOutcome.FAILOVER: "WebhooksFailedOver",
    DeliveryOutcome.EXPIRED: "WebhooksExpired",
    DeliveryOutcome.FILTERED: "WebhooksFiltered",
}

processor = AsyncBatchProcessor(event_type=EventType.SQS)
# One thread per record of a full batch: asyncio's default pool has only cores + 4 threads, which
# would make the fifth and later webhooks of a batch wait for the first ones.
DELIVERY_THREADS = ThreadPoolExecutor(max_workers=10, thread_name_prefix="delivery")


def parse_batch(event: dict[str, Any]) -> dict[str, Envelope | EnvelopeError]:
    """Each record's envelope by SQS message id, or why its body is none (the one parse)."""
    parsed: dict[str, Envelope | EnvelopeError] = {}
    for record in event.get("Records", []):
        try:
            parsed[record.get("messageId", "")] = Envelope.from_json(record.get("body", ""))
        except EnvelopeError as error:
            parsed[record.get("messageId", "")] = error
    return parsed


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    envelopes = parse_batch(event)
    delivery = push_delivery()

    async def record_handler(record: SQSRecord) -> DeliveryOutcome:
        envelope = envelopes[record.message_id]
        if isinstance(envelope, EnvelopeError):
            raise envelope
        loop = asyncio.get_running_loop()
        lane = delivery.lanes.of_queue(record.event_source_arn)
        outcome = await loop.run_in_executor(DELIVERY_THREADS, delivery.deliver, envelope, lane)
        metrics.add_metric(name=OUTCOME_METRICS[outcome], unit=MetricUnit.Count, value=1)
        return outcome

    log_flush: Future[int] | None = None
    try:
        delivery.batch_catalog.prefetch([e for e in envelopes.values() if isinstance(e, Envelope)])
        response = dict(
            async_process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        )
        log_flush = DELIVERY_THREADS.submit(delivery_log().flush, context.aws_request_id)
        delivery.apply.finish_batch()
        return response
    finally:
        if log_flush is None:
            delivery_log().flush(context.aws_request_id)
        else:
            log_flush.result()
