"""Management function: rooms, subscriptions, message status, signing secrets, schedules and dead
letters. One router per resource; each route's models and OpenAPI live beside it."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from management_api import dependencies
from management_api.dead_letters.routes import router as dead_letters
from management_api.messages.routes import router as messages
from management_api.rooms.routes import router as rooms
from management_api.schedule.routes import router as schedule
from management_api.signing_secrets.routes import router as signing_secrets
from management_api.subscriptions.routes import router as subscriptions
from roomcast.api.errors import install_error_handlers
from roomcast.api.guards import json_body_required
from roomcast.observability import logger, metrics

app = APIGatewayHttpResolver(enable_validation=True)
for router in (rooms, subscriptions, messages, signing_secrets, schedule, dead_letters):
    app.include_router(router)
install_error_handlers(app)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return json_body_required(event) or app.resolve(event, context)
    finally:
        if dependencies.stores.cache_info().currsize:  # only requests that reached the data log records
            dependencies.stores().log.flush(context.aws_request_id)
