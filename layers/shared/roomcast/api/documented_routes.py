"""Routers for the API functions' resources, each route documented from its function.

A route's OpenAPI entry comes from the function that serves it: the summary is the first line of
its docstring, the description the rest; the success answer, the errors it can give, its tag and
operation id are the decorator's arguments (``roomcast.api.openapi.responses`` adds the errors
every operation can give); ``{MAX_PAGE_SIZE}`` and the like in a docstring become the limit::

    rooms = Routes("rooms")

    @rooms.get("/rooms/<roomId>", "getRoom", "The room", 404)
    def get_room(...) -> RoomResponse:
        '''Read a room

        The room with its policy. Another tenant's room is not found.'''

A route's ``access`` (roomcast.access.rule.RouteAccess) says which API keys and portal sessions
may call it; without one, GETs are for ``read`` and ``manage`` keys, other methods for ``manage``
keys (``admin`` keys call every route). roomcast.access.gate checks it before the route runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol

from aws_lambda_powertools.event_handler.api_gateway import Router

from roomcast.access import ROUTES, RouteAccess, default_access
from roomcast.api.openapi import responses
from roomcast.platform import limits

# A docstring may name a limit, e.g. {MAX_PAGE_SIZE}: the description then says its value.
_LIMITS = {name: value for name, value in vars(limits).items() if name.isupper()}


def new_router() -> Router:
    """A powertools Router; its constructor carries no type annotations."""
    return Router()  # type: ignore[no-untyped-call]


class Decorator(Protocol):
    """What a route decorator is: it gives back the function it registered."""

    def __call__[F: Callable[..., Any]](self, handler: F, /) -> F: ...


def _verb(method: str) -> Callable[..., Decorator]:
    """``Routes.get`` and its siblings: register on the router's method of that name."""

    def register(
        routes: Routes, path: str, operation_id: str, answer: str, *errors: int, **extra: Any
    ) -> Decorator:
        declared: RouteAccess = extra.pop("access", None) or default_access(method)
        ROUTES.declare(method, path, declared)
        return routes.document(getattr(routes.router, method), path, operation_id, answer, errors, **extra)

    return register


class Routes:
    """One resource's routes on a powertools router, under one OpenAPI tag."""

    get, post, put, patch, delete = _verb("get"), _verb("post"), _verb("put"), _verb("patch"), _verb("delete")

    def __init__(self, tag: str) -> None:
        self.router = new_router()
        self.tag = tag

    def document(
        self,
        register: Callable[..., Decorator],
        path: str,
        operation_id: str,
        answer: str,
        errors: tuple[int, ...],
        status: int = 200,
        links: dict[str, Any] | None = None,
        accepted: tuple[str, type[Any], type[Any]] | None = None,
    ) -> Decorator:
        def documented[F: Callable[..., Any]](handler: F) -> F:
            summary, _, description = inspect.cleandoc(handler.__doc__ or "").partition("\n\n")
            if not summary or not description:
                raise ValueError(
                    f"{handler.__name__}: the docstring gives the summary, a blank line, the description"
                )
            return register(
                path,
                status_code=status,
                operation_id=operation_id,
                summary=summary,
                description=" ".join(description.format_map(_LIMITS).split()),
                responses=responses(status, answer, *errors, links=links, accepted=accepted),
                tags=[self.tag],
            )(handler)  # powertools' route decorators return the function itself

        return documented
