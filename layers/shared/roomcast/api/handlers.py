"""The Lambda handler of an HTTP API function: the resolver with its routers and error handlers,
the body guards, and the delivery log written at the end of every invocation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.api.errors import install_error_handlers
from roomcast.api.guards import NOSNIFF, body_too_large, gateway_error, json_body_required
from roomcast.api.tenancy import tenant_of
from roomcast.platform import logger, metrics

if TYPE_CHECKING:
    from roomcast.access import AccessGate
    from roomcast.api.throttle import TenantThrottle

LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


class DecodingResolver(APIGatewayHttpResolver):
    """The HTTP API resolver, with every path parameter percent-decoded once, here, for every route:
    a client sends ``order%3A1001`` for the key ``order:1001`` (a ``/`` in an event type's name
    comes as ``%2F``), and a gateway may pass the path as sent. No identifier roomcast accepts
    holds a ``%``, so decoding a parameter the gateway decoded already changes nothing."""

    def append_context(self, **additional_context: Any) -> None:
        arguments = additional_context.get("_route_args")
        if isinstance(arguments, dict):
            additional_context["_route_args"] = {
                name: unquote(value) if isinstance(value, str) else value for name, value in arguments.items()
            }
        super().append_context(**additional_context)  # type: ignore[no-untyped-call]


def new_api(*routers: Router, served_elsewhere: Sequence[tuple[str, str]] = ()) -> APIGatewayHttpResolver:
    """A resolver that validates requests and responses against the routes' models, its path
    parameters decoded (``DecodingResolver``). ``served_elsewhere``: (method, path template)
    routes another function serves on paths this one serves too, for the ``Allow`` header of a 405."""
    app = DecodingResolver(enable_validation=True)
    for router in routers:
        app.include_router(router)
    install_error_handlers(app, served_elsewhere)
    return app


def http_handler(
    app: APIGatewayHttpResolver,
    flush_log: Callable[[str], object],
    throttle: Callable[[], TenantThrottle | None],
    max_body_bytes: int | Callable[[dict[str, Any]], int] | None = None,
    request_weight: Callable[[dict[str, Any]], int] = lambda event: 1,
    gate: AccessGate | None = None,
) -> LambdaHandler:
    """``lambda_handler`` of an API function: the tenant's request rate first, then guards (body
    size, JSON), then the routes; every answer carries ``X-Content-Type-Options: nosniff``;
    ``flush_log(request_id)`` writes the invocation's delivery-log records whatever happened.
    ``max_body_bytes``: one limit, or the limit for an event (routes with different limits);
    ``throttle``: the tenants' request rate, made on the first request that has a tenant
    (roomcast.wiring.tenant_throttle);
    ``request_weight``: how many requests of that rate a request counts as (ADR 0043);
    ``gate``: who may call which route (roomcast.access; the default knows API keys only), checked
    after the rate and before anything of the request is read (ADR 0048)."""
    if gate is None:
        from roomcast.access import AccessGate

        gate = AccessGate()
    access_gate = gate

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        try:
            tenants = throttle() if tenant_of(event) is not None else None
            over_rate = tenants.check(event, request_weight(event)) if tenants is not None else None
            if over_rate is not None:
                return over_rate
            refused = access_gate.check(event)
            if refused is not None:
                return gateway_error(refused.status, refused.code, refused.message, list(refused.details))
            limit = max_body_bytes(event) if callable(max_body_bytes) else max_body_bytes
            too_large = body_too_large(event, limit) if limit is not None else None
            return with_nosniff(too_large or json_body_required(event) or app.resolve(event, context))
        finally:
            flush_log(context.aws_request_id)

    return lambda_handler


def with_nosniff(response: dict[str, Any]) -> dict[str, Any]:
    """``response`` (payload 2.0) with ``X-Content-Type-Options: nosniff``: every answer of the
    API is JSON, and a browser must never sniff one into HTML or script."""
    headers = response.setdefault("headers", {})
    if not any(str(name).lower() == "x-content-type-options" for name in headers):
        headers.update(NOSNIFF)
    return response
