"""Publish function: POST /rooms/{roomId}/messages → 202 with the message id and destinations."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from publish_api.dependencies import delivery_log
from publish_api.routes import router
from roomcast.api.errors import install_error_handlers
from roomcast.api.guards import body_too_large, json_body_required
from roomcast.domain import limits
from roomcast.observability import logger, metrics

app = APIGatewayHttpResolver(enable_validation=True)
app.include_router(router)
install_error_handlers(app)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return (
            body_too_large(event, limits.MAX_PUBLISH_BODY_BYTES)
            or json_body_required(event)
            or app.resolve(event, context)
        )
    finally:
        delivery_log().flush(context.aws_request_id)
