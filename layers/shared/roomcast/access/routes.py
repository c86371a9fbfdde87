"""The routes a function serves with what each allows (``RouteAccess``), matched to a request
exactly as powertools' resolver matches it (same compiled patterns, same path), so that the
decision is always about the route that will run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

from roomcast.access.rule import RouteAccess


@dataclass(frozen=True)
class DeclaredRoute:
    method: str
    template: str  # powertools' form: /rooms/<roomId>
    pattern: re.Pattern[str]
    access: RouteAccess


@dataclass(frozen=True)
class MatchedRoute:
    route: DeclaredRoute
    parameters: dict[str, str]  # percent-decoded, as the routes receive them

    @property
    def room_id(self) -> str | None:
        return self.parameters.get("roomId")

    @property
    def subscription_id(self) -> str | None:
        return self.parameters.get("subscriptionId")


class RouteTable:
    def __init__(self) -> None:
        self._routes: list[DeclaredRoute] = []

    def declare(self, method: str, template: str, access: RouteAccess) -> None:
        pattern = APIGatewayHttpResolver._compile_regex(template)  # the resolver's own
        self._routes.append(DeclaredRoute(method.upper(), template, pattern, access))
        # The resolver tries routes without parameters first: so does match().
        self._routes.sort(key=lambda declared: "<" in declared.template)

    def match(self, method: str, path: str) -> MatchedRoute | None:
        for declared in self._routes:
            if declared.method != method.upper():
                continue
            found = declared.pattern.match(path)
            if found:
                parameters = {name: unquote(value) for name, value in found.groupdict().items()}
                return MatchedRoute(declared, parameters)
        return None

    def routes(self) -> list[DeclaredRoute]:
        return list(self._routes)


# Every route declared in this process (roomcast.api.Routes declares into it).
ROUTES = RouteTable()


def request_line(event: dict[str, Any]) -> tuple[str, str]:
    """The method and path of an HTTP API (payload 2.0) event, as the resolver reads them."""
    method = str(((event.get("requestContext") or {}).get("http") or {}).get("method") or "")
    return method.upper(), str(event.get("rawPath") or "/")
