"""Publish function: POST /rooms/{roomId}/messages → 202 with the message id and destinations;
POST /rooms/{roomId}/messages/batch → 200 with each message's outcome.

The sends-done mark and the delivery log's records are written after the answer, by the function's
after-answer extension, registered here during the init (roomcast.platform.after_answer)."""

from __future__ import annotations

from typing import Any

from publish_api.dependencies import delivery_log
from publish_api.routes import routes
from roomcast import wiring
from roomcast.api import http_handler, new_api
from roomcast.platform import after_answer, limits


def body_limit_bytes(event: dict[str, Any]) -> int:
    """A batch may be larger than a single publish (each payload keeps its own limit)."""
    if str(event.get("rawPath", "")).rstrip("/").endswith("/messages/batch"):
        return limits.MAX_PUBLISH_BATCH_BODY_BYTES
    return limits.MAX_PUBLISH_BODY_BYTES


app = new_api(routes.router)
after_answer.start_as_configured()  # during the init, as Lambda requires
lambda_handler = after_answer.answer_first(
    http_handler(
        app,
        lambda request_id: after_answer.later(lambda: delivery_log().flush(request_id)),
        wiring.tenant_throttle,
        max_body_bytes=body_limit_bytes,
    )
)
