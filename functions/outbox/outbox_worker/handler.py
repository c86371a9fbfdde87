"""Outbox function: triggered by the table's stream, filtered to message items marked ``unsent``
(template.yaml); partial batch responses, so one message that still cannot be sent is retried
alone while the others of the batch are done."""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from outbox_worker.service import OutboxResult, OutboxService
from roomcast.dal.stores import Stores
from roomcast.observability import logger, metrics

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


@cache
def stores() -> Stores:
    return Stores.for_function("outbox")


@cache
def service() -> OutboxService:
    return OutboxService.of(stores())


def record_handler(record: DynamoDBRecord) -> OutboxResult:
    new_image = record.raw_event.get("dynamodb", {}).get("NewImage") or {}
    result = service().send_unsent(new_image)
    metrics.add_metric(name="OutboxEnvelopesSent", unit=MetricUnit.Count, value=len(result.sent))
    metrics.add_metric(name="OutboxDeliveriesCleared", unit=MetricUnit.Count, value=len(result.cleared))
    logger.info(
        "outbox sent a message's unsent envelopes", extra={"sent": result.sent, "cleared": result.cleared}
    )
    return result


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return dict(
            process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        )
    finally:
        stores().log.flush(context.aws_request_id)
