"""Publish function: POST /rooms/{roomId}/messages → 202 with the message id and destinations."""

from __future__ import annotations

from publish_api.dependencies import stores
from publish_api.routes import routes
from roomcast.api.handlers import http_handler, new_api
from roomcast.domain import limits

app = new_api(routes.router)
lambda_handler = http_handler(
    app, lambda request_id: stores().log.flush(request_id), max_body_bytes=limits.MAX_PUBLISH_BODY_BYTES
)
