"""Push function: SQS-triggered (the shared push queue), partial batch responses.

The deliveries of one batch go out concurrently (powertools AsyncBatchProcessor; each delivery
runs in a worker thread), so one slow endpoint does not hold back the others. A record whose
handling raises (an AWS outage, say) is reported as a batch item failure: SQS hands it back
after the visibility timeout, and after 10 receives it moves to the poison queue.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from push_worker.service import PushService
from roomcast.config import load_settings
from roomcast.dal.stores import Stores
from roomcast.domain.envelope import Envelope, EnvelopeError
from roomcast.domain.outcomes import DeliveryOutcome
from roomcast.domain.push_urls import PushUrlPolicy
from roomcast.observability import logger, metrics

OUTCOME_METRICS = {
    DeliveryOutcome.DELIVERED: "WebhooksDelivered",
    DeliveryOutcome.RETRY: "WebhookRetriesScheduled",
    DeliveryOutcome.HOP: "EnvelopeHops",
    DeliveryOutcome.HELD: "EnvelopesHeld",
    DeliveryOutcome.CLEARED: "WebhooksCleared",
    DeliveryOutcome.SUPERSEDED: "EnvelopesSuperseded",
    DeliveryOutcome.DEAD: "WebhooksDead",
    DeliveryOutcome.FAILOVER: "WebhooksFailedOver",
    DeliveryOutcome.EXPIRED: "WebhooksExpired",
}

processor = AsyncBatchProcessor(event_type=EventType.SQS)
# One thread per record of a full batch: asyncio's default pool has only cores + 4 threads, which
# would make the fifth and later webhooks of a batch wait for the first ones.
DELIVERY_THREADS = ThreadPoolExecutor(max_workers=10, thread_name_prefix="delivery")


@cache
def stores() -> Stores:
    return Stores.for_function("push")


@cache
def service() -> PushService:
    """The push service with its data access, made on the first batch (boto3 is imported then)."""
    return PushService.of(stores(), PushUrlPolicy(allow_loopback=load_settings().allow_loopback_push_urls))


async def record_handler(record: SQSRecord) -> DeliveryOutcome:
    envelope = Envelope.from_json(record.body)
    outcome = await asyncio.get_running_loop().run_in_executor(DELIVERY_THREADS, service().deliver, envelope)
    metrics.add_metric(name=OUTCOME_METRICS[outcome], unit=MetricUnit.Count, value=1)
    return outcome


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    log_flush: Future[int] | None = None
    try:
        service().prefetch(_envelopes(event))
        response = dict(
            async_process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        )
        # The batch's 'delivered' records and its delivery-log records are written at the same
        # time: the records before the batch is acknowledged (if that write fails, the batch comes
        # back: duplicates at worst); the log never fails a batch (its flush does not raise).
        log_flush = DELIVERY_THREADS.submit(stores().log.flush, context.aws_request_id)
        service().flush_delivered()
        return response
    finally:
        if log_flush is None:
            stores().log.flush(context.aws_request_id)
        else:
            log_flush.result()


def _envelopes(event: dict[str, Any]) -> list[Envelope]:
    """The batch's envelopes that parse (the others fail in the record handler, one by one)."""
    found = []
    for record in event.get("Records", []):
        try:
            found.append(Envelope.from_json(record.get("body", "")))
        except EnvelopeError:
            continue
    return found
