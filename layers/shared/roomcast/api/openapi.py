"""What every operation's OpenAPI entry needs besides its models: the documented responses
(success, errors with the one error shape), the security scheme, and the document's header.

Each function documents its own routes with these; the published document is merged from the
functions' resolvers (``roomcast_dev.openapi``, docs/decisions/0015-one-home-per-route.md).
"""

from __future__ import annotations

from typing import Any, Final

from roomcast.api.models import ErrorResponse, GatewayError

# 401 and 403 come from API Gateway (no credential, an unknown one) or from the function: a portal
# session expired or revoked (401); a key without the scope a route needs, a key limited to rooms
# on a route about none, a read-only portal session asked to change something (403).
AuthError = GatewayError | ErrorResponse

TITLE: Final = "roomcast"
API_VERSION: Final = "1"
SUMMARY: Final = "Rooms and subscriptions: signed webhooks and pull queues without running brokers."
DESCRIPTION: Final = (
    "Publishers POST messages to rooms; every matching subscription receives them as signed "
    "webhooks (PUSH, retried with exponential backoff) or from its own queue (PULL). "
    "Authenticate with `Authorization: Bearer <API key>`. Every error the API answers has one shape, "
    '`{"error": {"code", "message", "details"}}`; errors API Gateway answers before a function '
    'runs (401, 403) are `{"message"}`.'
)
SECURITY_SCHEME: Final = "apiKey"
TAGS: Final = (
    ("rooms", "A room holds the message expiry and the default delivery policy."),
    ("subscriptions", "PUSH (signed webhooks) or PULL (own queue) receivers of a room's messages."),
    ("messages", "Publishing; a room's messages, each one's delivery status and attempt history."),
    ("deliveries", "A subscription's deliveries: list, retry now, clear all."),
    ("pull", "Reading a PULL subscription's queue: pull, ack, nack, extend."),
    ("dead letters", "Messages that ended dead, per subscription: list, replay, purge."),
)

_ERRORS: Final = {
    400: (
        "Malformed request: the body is not JSON, or a cursor, receipt or header is invalid",
        "malformed_json",
        "request body is not valid JSON",
    ),
    404: (
        "Not found (a resource of another tenant is not found either)",
        "not_found",
        "room room_0123456789abcdef0123456789abcdef not found",
    ),
    409: (
        "Conflict with the current state",
        "conflict",
        "subscription sub_0123456789abcdef0123456789abcdef was changed or deleted meanwhile; read it again",
    ),
    413: (
        "The payload or the request body is too large",
        "payload_too_large",
        "payload is 140000 bytes serialized; the limit is 131072",
    ),
    415: (
        "The body is not declared JSON",
        "unsupported_media_type",
        "request body must be JSON: send Content-Type: application/json (got 'text/plain')",
    ),
    422: (
        "Validation error: a field is missing, of the wrong type, out of bounds or refused",
        "validation_error",
        "body.deliveryAttempts: Input should be less than or equal to 50",
    ),
    429: (
        "Your tenant is over its request rate: retry after the Retry-After header's seconds",
        "rate_limited",
        "tenant over its request rate of 100 per second (a burst of 200); retry after 1 s",
    ),
    500: (
        "Internal error (a bug, or AWS failing); the request may be retried",
        "internal_error",
        "internal error; the request may be retried",
    ),
}
# Every operation can answer these: powertools validates every request (422), anything can fail (500).
_ALWAYS: Final = (422, 500)
_GATEWAY_ERRORS: Final = {
    401: ("No API key (answered by API Gateway), or a portal session expired or revoked", "Unauthorized"),
    403: (
        "The API key is not valid (answered by API Gateway), or lacks the scope this operation "
        "needs (`missing_scope`), or is limited to rooms and this operation is about none "
        "(`room_limited`), or the portal session is read-only (`read_only`)",
        "Forbidden",
    ),
    431: (
        "The request line and headers exceed API Gateway's 10240 bytes (answered by API Gateway)",
        "Request Header Fields Too Large",
    ),
}
_GATEWAY_AUTH_ERRORS: Final = (401, 403)


def _error(status: int) -> dict[str, Any]:
    description, code, message = _ERRORS[status]
    example = {"error": {"code": code, "message": message, "details": []}}
    return {
        "description": description,
        "content": {"application/json": {"model": ErrorResponse, "examples": {code: {"value": example}}}},
    }


_FUNCTION_AUTH_EXAMPLES: Final = {
    401: (
        "session_expired",
        "this portal session has expired: open the portal again",
    ),
    403: (
        "missing_scope",
        "this API key lacks the scope manage that DELETE /rooms/room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21 "
        "needs (it has: publish)",
    ),
}


def _gateway_error(status: int) -> dict[str, Any]:
    description, message = _GATEWAY_ERRORS[status]
    examples: dict[str, Any] = {message: {"value": {"message": message}}}
    model: Any = GatewayError
    if status in _FUNCTION_AUTH_EXAMPLES:
        code, text = _FUNCTION_AUTH_EXAMPLES[status]
        examples[code] = {"value": {"error": {"code": code, "message": text, "details": []}}}
        model = AuthError
    return {
        "description": description,
        "content": {"application/json": {"model": model, "examples": examples}},
    }


def responses(
    status: int,
    description: str,
    *errors: int,
    links: dict[str, Any] | None = None,
    authorized: bool = True,
    accepted: tuple[str, type[Any], type[Any]] | None = None,
) -> dict[int, Any]:
    """An operation's documented responses: the success (its schema and examples come from the
    route's return model), the given error statuses, 422 and 500 (any operation can answer them),
    431 (API Gateway's header limit), and 401/403 and 429 (the tenant's request rate) for every
    operation behind the API key. ``accepted`` documents an operation that answers at once or
    starts a job: the 202's description and model, and the success's own model; ``links`` then
    belong to the 202."""
    success: dict[str, Any] = {"description": description}
    if status == 204:
        success["content"] = {}  # no body
    documented: dict[int, Any] = {status: success}
    if accepted is not None:
        accepted_description, model, answered = accepted
        success["content"] = {"application/json": {"model": answered}}
        documented[202] = {
            "description": accepted_description,
            "content": {"application/json": {"model": model}},
        }
    if links:
        documented[202 if accepted is not None else status]["links"] = links
    documented |= {
        code: _gateway_error(code)
        for code in _GATEWAY_ERRORS
        if authorized or code not in _GATEWAY_AUTH_ERRORS
    }
    tenant_limited = {429} if authorized else set()
    return documented | {code: _error(code) for code in sorted({*errors, *_ALWAYS, *tenant_limited})}


def link(operation_id: str, description: str, **parameters: str) -> dict[str, Any]:
    """An OpenAPI link to ``operation_id`` with parameters taken from this response or request."""
    return {"operationId": operation_id, "parameters": parameters, "description": description}
