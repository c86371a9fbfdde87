"""Publish function: POST /rooms/{roomId}/messages → 202 with the message id and destinations;
POST /rooms/{roomId}/messages/batch → 200 with each message's outcome."""

from __future__ import annotations

from typing import Any

from publish_api.dependencies import delivery_log
from publish_api.routes import routes
from roomcast import wiring
from roomcast.api import http_handler, new_api
from roomcast.platform import limits


def body_limit_bytes(event: dict[str, Any]) -> int:
    """A batch may be larger than a single publish (each payload keeps its own limit)."""
    if str(event.get("rawPath", "")).rstrip("/").endswith("/messages/batch"):
        return limits.MAX_PUBLISH_BATCH_BODY_BYTES
    return limits.MAX_PUBLISH_BODY_BYTES


app = new_api(routes.router)
lambda_handler = http_handler(
    app,
    lambda request_id: delivery_log().flush(request_id),
    wiring.tenant_throttle,
    max_body_bytes=body_limit_bytes,
)
