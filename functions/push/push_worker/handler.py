"""Push function: SQS-triggered (the shared push queue), partial batch responses.

The deliveries of one batch go out concurrently (powertools AsyncBatchProcessor; each delivery
runs in a worker thread), so one slow endpoint does not hold back the others. A record whose
handling raises (an AWS outage, say) is reported as a batch item failure: SQS hands it back
after the visibility timeout, and after 10 receives it moves to the poison queue.
"""

from __future__ import annotations

import asyncio
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
from roomcast.config import load_settings
from roomcast.dal.dead_letters import DeadLetterStore
from roomcast.dal.messages import MessageStore
from roomcast.dal.repository import Repository
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery.endings import Endings
from roomcast.delivery.log import DeliveryLog
from roomcast.domain.envelope import Envelope
from roomcast.domain.push_urls import PushUrlPolicy
from roomcast.observability import logger, metrics

from push_worker.service import PushService

OUTCOME_METRICS = {
    "delivered": "WebhooksDelivered",
    "retry": "WebhookRetriesScheduled",
    "hop": "EnvelopeHops",
    "dead": "WebhooksDead",
    "failover": "WebhooksFailedOver",
    "expired": "WebhooksExpired",
    "dropped": "WebhooksDropped",
}

processor = AsyncBatchProcessor(event_type=EventType.SQS)


@cache
def delivery_log() -> DeliveryLog:
    settings = load_settings()
    return DeliveryLog(settings.log_bucket, "push")


@cache
def service() -> PushService:
    settings = load_settings()
    repository = Repository(settings.table_name)
    messages = MessageStore(settings.table_name)
    sender = EnvelopeSender()
    endings = Endings(
        repository=repository,
        messages=messages,
        dead_letters=DeadLetterStore(settings.table_name),
        sender=sender,
        push_queue_url=settings.push_queue_url,
        log=delivery_log(),
    )
    return PushService(
        repository=repository,
        messages=messages,
        endings=endings,
        sender=sender,
        log=delivery_log(),
        push_url_policy=PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls),
    )


async def record_handler(record: SQSRecord) -> str:
    envelope = Envelope.from_json(record.body)
    outcome = await asyncio.to_thread(service().deliver, envelope)
    metrics.add_metric(name=OUTCOME_METRICS.get(outcome, "WebhooksOther"), unit=MetricUnit.Count, value=1)
    return outcome


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return dict(
            async_process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        )
    finally:
        delivery_log().flush(context.aws_request_id)
