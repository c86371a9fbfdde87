"""Every route decodes its path parameters the same way (issue 48: a paused `order:1001` could not be
resumed from the SDK, which sends `order%3A1001`): the published route table walked, each path
parameter sent with reserved characters percent-encoded, and what each route's code would be
given recorded before anything runs."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import pytest
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import APIGatewayHttpResolver, Router

from management_api import handler as management
from publish_api import handler as publish
from publish_api.routes import routes as publish_routes
from pull_api import handler as pull
from pull_api.routes import routes as pull_routes
from roomcast.api.handlers import DecodingResolver
from tests.support import PROJECT_ROOT, FakeLambdaContext, api_event

# Characters an ordering key or an event type's name may hold that a URL path escapes.
RESERVED = "a:b@c+d=e.f-g_h/i"
ROUTERS: dict[str, list[Router]] = {
    "management": [r.router for r in management.ROUTES],
    "publish": [publish_routes.router],
    "pull": [pull_routes.router],
}
DOCUMENT = json.loads((PROJECT_ROOT / "functions/docs/api_docs/openapi.json").read_text())
ROUTES_WITH_PARAMETERS = [
    (method.upper(), path)
    for path, operations in DOCUMENT["paths"].items()
    if "{" in path
    for method in operations
    if method in ("get", "post", "patch", "delete", "put")
]


def test_every_api_function_decodes_its_path_parameters() -> None:
    for function in (management, publish, pull):
        assert type(function.app) is DecodingResolver, function.__name__


def probing_app(routers: list[Router], seen: list[dict[str, Any]]) -> APIGatewayHttpResolver:
    """A function's routes on the decoding resolver, answered by a probe that records what the route
    would be given (validation off: the probe stands in for the route's code)."""
    app = DecodingResolver(enable_validation=False)
    for router in routers:
        app.include_router(router)

    def probe(app: APIGatewayHttpResolver, next_middleware: Any) -> Response[str]:
        seen.append(dict(app.context.get("_route_args") or {}))
        return Response(status_code=200, body="{}", content_type="application/json")

    app.use([probe])
    return app


@pytest.mark.parametrize(("method", "template"), ROUTES_WITH_PARAMETERS)
def test_a_path_parameter_with_reserved_characters_reaches_the_route_decoded(
    method: str, template: str
) -> None:
    # Given: the route's path with each parameter percent-encoded, as an SDK sends it
    names = re.findall(r"{(\w+)}", template)
    path = template
    for name in names:
        path = path.replace("{" + name + "}", quote(RESERVED, safe=""))

    # When: it reaches the function that serves it
    seen: dict[str, list[dict[str, Any]]] = {function: [] for function in ROUTERS}
    for function, routers in ROUTERS.items():
        event = api_event(method, path, {} if method != "GET" else None)
        probing_app(routers, seen[function]).resolve(event, FakeLambdaContext())  # type: ignore[arg-type]

    # Then: one function routed it, and its code is given each parameter decoded
    routed = {function: args for function, found in seen.items() for args in found if args}
    assert list(routed.values()) == [dict.fromkeys(names, RESERVED)], (method, path, routed)
