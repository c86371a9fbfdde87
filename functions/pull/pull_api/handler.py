"""Pull function: POST .../subscriptions/{subscriptionId}/pull, /ack, /nack and /extend."""

from __future__ import annotations

from pull_api.dependencies import delivery_log
from pull_api.routes import routes
from roomcast import wiring
from roomcast.api import http_handler, new_api

app = new_api(routes.router)
lambda_handler = http_handler(
    app, lambda request_id: delivery_log().flush(request_id), wiring.tenant_throttle
)
