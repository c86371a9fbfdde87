"""Pull function: POST .../subscriptions/{subscriptionId}/pull, /ack and /nack."""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from pull_api.service import PullService
from roomcast.api.errors import install_error_handlers, json_body_required, tenant_id
from roomcast.api.pull_contract import AckResponse, NackResponse, PullRequest, PullResponse, ReceiptsRequest
from roomcast.config import load_settings
from roomcast.dal.queues import QueueClient
from roomcast.delivery.endings import Endings
from roomcast.delivery.log import DeliveryLog
from roomcast.observability import logger, metrics

app = APIGatewayHttpResolver(enable_validation=True)
install_error_handlers(app)
BASE = "/rooms/<roomId>/subscriptions/<subscriptionId>"


@cache
def delivery_log() -> DeliveryLog:
    return DeliveryLog(load_settings().log_bucket, "pull")


@cache
def service() -> PullService:
    settings = load_settings()
    endings = Endings.for_settings(settings, delivery_log())
    return PullService(
        repository=endings.repository,
        messages=endings.messages,
        queues=QueueClient(),
        sender=endings.sender,
        endings=endings,
        log=delivery_log(),
    )


@app.post(f"{BASE}/pull", tags=["pull"])
def pull(roomId: str, subscriptionId: str, body: PullRequest) -> PullResponse:
    messages = service().pull(tenant_id(app), roomId, subscriptionId, body.maxMessages, body.waitSeconds)
    metrics.add_metric(name="MessagesPulled", unit=MetricUnit.Count, value=len(messages))
    return PullResponse.model_validate({"messages": messages})


@app.post(f"{BASE}/ack", tags=["pull"])
def ack(roomId: str, subscriptionId: str, body: ReceiptsRequest) -> AckResponse:
    result = service().ack(tenant_id(app), roomId, subscriptionId, body.receipts)
    metrics.add_metric(name="MessagesAcked", unit=MetricUnit.Count, value=len(result["acked"]))
    return AckResponse.model_validate(result)


@app.post(f"{BASE}/nack", tags=["pull"])
def nack(roomId: str, subscriptionId: str, body: ReceiptsRequest) -> NackResponse:
    result = service().nack(tenant_id(app), roomId, subscriptionId, body.receipts)
    metrics.add_metric(name="MessagesNacked", unit=MetricUnit.Count, value=len(result["nacked"]))
    return NackResponse.model_validate(result)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return json_body_required(event) or app.resolve(event, context)
    finally:
        delivery_log().flush(context.aws_request_id)
