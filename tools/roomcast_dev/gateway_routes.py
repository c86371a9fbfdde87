"""Which route of an API Gateway HTTP API serves a request: the template's routes, matched as
API Gateway chooses among them (exact paths first, then fewer greedy variables, then an explicit
method over ANY)."""

from __future__ import annotations

import re

from roomcast_dev.template import Route


class CompiledRoute:
    def __init__(self, route: Route) -> None:
        self.route = route
        pattern = ""
        self.literal_segments = 0
        self.greedy = False
        for segment in route.path.strip("/").split("/"):
            if segment.endswith("+}"):
                pattern += f"/(?P<{segment[1:-2]}>.+)"
                self.greedy = True
            elif segment.startswith("{"):
                pattern += f"/(?P<{segment[1:-1]}>[^/]+)"
            elif segment:
                pattern += "/" + re.escape(segment)
                self.literal_segments += 1
        self.regex = re.compile(f"^{pattern or '/'}$")

    @property
    def route_key(self) -> str:
        return f"{self.route.method} {self.route.path}"

    def specificity(self) -> tuple[int, int, int]:
        # API Gateway prefers exact paths, then fewer greedy variables, then an explicit method over ANY.
        return (self.literal_segments, 0 if self.greedy else 1, 0 if self.route.method == "ANY" else 1)


class RouteTable:
    """The routes of one API; ``match`` finds the one that serves a method and path."""

    def __init__(self, routes: list[Route]) -> None:
        self._routes = [CompiledRoute(route) for route in routes]

    def match(self, method: str, path: str) -> tuple[CompiledRoute, dict[str, str]] | None:
        """The route and its path parameters, or None when no route serves the request."""
        candidates = []
        for compiled in self._routes:
            if compiled.route.method not in ("ANY", method):
                continue
            found = compiled.regex.match(path)
            if found:
                candidates.append((compiled, found.groupdict()))
        if not candidates:
            return None
        return max(candidates, key=lambda pair: pair[0].specificity())
