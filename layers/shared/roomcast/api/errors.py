"""The one JSON error shape of the API: ``{"error": {"code", "message", "details": [...]}}``,
and the exception handlers every API function installs on its resolver."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools.event_handler import ApiGatewayResolver, Response, content_types

from roomcast.platform import RoomcastError

ROOM_OWNER_ONLY = "messageExpirationMs is set by the room owner only; a subscription cannot override it"


def error_response(
    status: int,
    code: str,
    message: str,
    details: Sequence[dict[str, Any]] = (),
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    body = {"error": {"code": code, "message": message, "details": list(details)}}
    return Response(
        status_code=status, content_type=content_types.APPLICATION_JSON, body=body, headers=headers
    )


def _field(location: Sequence[Any]) -> str:
    # Drop the discriminator tag pydantic adds for tagged unions (body.PUSH.pushUrl -> body.pushUrl).
    parts = [str(p) for p in location if p not in ("PUSH", "PULL")]
    if parts[:1] == ["body"] and len(parts) == 2 and parts[1].isdigit():
        return "body"  # json_invalid reports the character offset as a location
    return ".".join(parts)


def _problem(error: dict[str, Any]) -> str:
    location = error.get("loc", ())
    if error.get("type") == "extra_forbidden" and location and location[-1] == "messageExpirationMs":
        return ROOM_OWNER_ONLY
    if error.get("type") == "json_invalid":
        return "request body is not valid JSON"
    if error.get("type") == "union_tag_invalid":
        return "type must be PUSH or PULL"
    if error.get("type") == "union_tag_not_found":
        return "type is required (PUSH or PULL)"
    return str(error.get("msg", error.get("type", "invalid")))


def _details(errors: Sequence[Any]) -> list[dict[str, str]]:
    return [
        {"field": _field(e.get("loc", ())), "problem": _problem(e), "type": str(e.get("type", "invalid"))}
        for e in errors
    ]


def validation_error(errors: Sequence[Any], location: Sequence[str | int]) -> RoomcastError:
    """pydantic's errors of a part of a request validated on its own (one message of a batch at
    ``location``, e.g. ``("body", "messages", 3)``), as the one error shape's 422."""
    details = _details([{**e, "loc": (*location, *e.get("loc", ()))} for e in errors])
    return RoomcastError(_summary(details), details, code="validation_error", http_status=422)


def _summary(details: list[dict[str, str]]) -> str:
    return "; ".join(f"{d['field']}: {d['problem']}" for d in details[:5]) or "invalid request"


# Refusals made by a model that keep the status and code the API gave them before a model made
# them (a PUSH-only field on a PULL subscription, refused by its create schema): answered so when
# they are the only problems of the request.
OWN_STATUS = {"push_only": 400}


def validation_error_response(errors: Sequence[Any]) -> Response[Any]:
    details = _details(errors)
    if any(d["type"] == "json_invalid" for d in details):
        return error_response(400, "malformed_json", "request body is not valid JSON", details)
    kinds = {d["type"] for d in details}
    if len(kinds) == 1 and (kind := kinds.pop()) in OWN_STATUS:
        return error_response(OWN_STATUS[kind], kind, _summary(details), details)
    return error_response(422, "validation_error", _summary(details), details)


def allowed_methods(
    app: ApiGatewayResolver, path: str, served_elsewhere: Sequence[tuple[str, str]] = ()
) -> list[str]:
    """The methods served on ``path`` (for a 405's ``Allow`` header): this resolver's, and
    ``served_elsewhere``'s (method, path template) pairs that another function serves. As API
    Gateway routes, the most specific templates win: ``POST /rooms/{roomId}/messages/batch``
    (another function) hides this one's ``GET /rooms/{roomId}/messages/{messageId}`` there."""
    # powertools keeps its compiled routes in these two lists (no public accessor).
    routes = [*getattr(app, "_static_routes", []), *getattr(app, "_dynamic_routes", [])]
    mine = [(route.method, _static_segments(route.path)) for route in routes if route.rule.match(path)]
    if not mine:
        return []
    others = [
        (method, _static_segments(template))
        for method, template in served_elsewhere
        if _template_pattern(template).match(path)
    ]
    most_specific = max(segments for _, segments in mine + others)
    return sorted({method for method, segments in mine + others if segments == most_specific})


def _static_segments(template: str) -> int:
    """How specific a route's path is: its segments that are not parameters."""
    return sum(1 for part in template.strip("/").split("/") if part and part[0] not in "{<")


def _template_pattern(template: str) -> re.Pattern[str]:
    """``/rooms/{roomId}/messages`` → a pattern matching one path segment per parameter."""
    return re.compile("^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$")


def install_error_handlers(app: ApiGatewayResolver, served_elsewhere: Sequence[tuple[str, str]] = ()) -> None:
    """Map validation errors, domain errors, unknown routes and surprises to the one error shape."""
    from aws_lambda_powertools.event_handler.depends import DependencyResolutionError
    from aws_lambda_powertools.event_handler.exceptions import NotFoundError
    from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

    from roomcast.platform import logger

    def on_validation_error(error: RequestValidationError) -> Response[Any]:
        return validation_error_response(error.errors())

    def on_domain_error(error: RoomcastError) -> Response[Any]:
        return error_response(error.http_status, error.code, error.message, error.details)

    def on_not_found(_: NotFoundError) -> Response[Any]:
        method = app.current_event.http_method
        path = app.current_event.path
        allowed = allowed_methods(app, path, served_elsewhere)
        if allowed:  # the path exists with other methods
            return error_response(
                405,
                "method_not_allowed",
                f"{method} is not allowed on {path}; use {', '.join(allowed)}",
                headers={"Allow": ", ".join(allowed)},
            )
        return error_response(404, "route_not_found", f"no route for {method} {path}")

    def on_unexpected(error: Exception) -> Response[Any]:
        logger.exception("unexpected error")
        return error_response(500, "internal_error", "internal error; the request may be retried")

    def on_dependency_error(error: DependencyResolutionError) -> Response[Any]:
        # powertools wraps what a Depends() callable raises; a domain error (401) keeps its answer.
        cause = error.__cause__
        return on_domain_error(cause) if isinstance(cause, RoomcastError) else on_unexpected(error)

    def served_elsewhere_first(app: ApiGatewayResolver, next_middleware: Any) -> Response[Any]:
        # A path another function serves more specifically is not this function's, even where one
        # of its own routes would match it (GET /rooms/{roomId}/messages/batch is no message).
        method, path = app.current_event.http_method, app.current_event.path
        allowed = allowed_methods(app, path, served_elsewhere)
        if served_elsewhere and allowed and method not in allowed:
            return error_response(
                405,
                "method_not_allowed",
                f"{method} is not allowed on {path}; use {', '.join(allowed)}",
                headers={"Allow": ", ".join(allowed)},
            )
        result: Response[Any] = next_middleware(app)
        return result

    app.use([served_elsewhere_first])
    app.exception_handler(RequestValidationError)(on_validation_error)
    app.exception_handler(RoomcastError)(on_domain_error)
    app.exception_handler(DependencyResolutionError)(on_dependency_error)
    app.not_found(on_not_found)
    app.exception_handler(Exception)(on_unexpected)
