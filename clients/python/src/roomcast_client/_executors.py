"""The two executors (sync and async) and the descriptors that bind each operation, written once,
to either.

``@operation`` turns a method that builds a ``Call[T]`` into one that returns ``T`` on a ``Client``
and a coroutine of ``T`` on an ``AsyncClient``; ``@paginated`` turns a list call's builder into an
iterator (sync) or an async iterator over every item of every page.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

import httpx

from roomcast_client._core import Call, Config, Outcome, Send, Sleep, Step, build_request, exchange
from roomcast_client.models import Page

T = TypeVar("T")
S = TypeVar("S")
H = TypeVar("H", httpx.Client, httpx.AsyncClient)
P = ParamSpec("P")


@dataclass(frozen=True)
class Done(Generic[T]):
    value: T


def advance(steps: Generator[S, Any, T], outcome: Any) -> S | Done[T]:
    """A step-yielding generator's next step after ``outcome``, or its result."""
    try:
        return steps.send(outcome)
    except StopIteration as done:
        return Done(done.value)


def raise_in(steps: Generator[S, Any, T], error: Exception) -> S | Done[T]:
    """As ``advance``, for a step that raised ``error``: raised in the generator, at that step's
    ``yield`` (what it does not catch is raised from here)."""
    try:
        return steps.throw(error)
    except StopIteration as done:
        return Done(done.value)


class _HttpHolder(Generic[H]):
    """What both executors hold: the configuration and an HTTP client of their kind, the caller's
    (left open) or their own (``owns_http``: the client closes it)."""

    http_class: type[H]

    def __init__(self, config: Config, http: httpx.Client | httpx.AsyncClient | None) -> None:
        if not isinstance(http, (self.http_class, type(None))):
            # roomcast's Client and AsyncClient are named after the httpx client each takes.
            name = self.http_class.__name__
            raise TypeError(f"{name} takes an httpx.{name}")
        self.config = config
        self.owns_http = http is None
        self.http: H = http or self.http_class(timeout=config.timeout_s)


class SyncExecutor(_HttpHolder[httpx.Client]):
    http_class = httpx.Client

    def run(self, call: Call[T]) -> T:
        steps = exchange(call, build_request(self.http, self.config, call), self.config.retry)
        step = advance(steps, None)
        while not isinstance(step, Done):
            step = advance(steps, self._carry_out(step))
        return step.value

    def _carry_out(self, step: Step) -> Outcome:
        if isinstance(step, Sleep):
            time.sleep(step.seconds)
            return None
        try:
            return self.http.send(step.request)
        except httpx.TransportError as error:
            return error

    def items(self, page_call: Callable[[str | None], Call[Page[T]]], cursor: str | None) -> Iterator[T]:
        while True:
            page = self.run(page_call(cursor))
            yield from page.items
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def poll(self, call: Call[T], until: Callable[[T], bool], timeout_s: float, interval_s: float) -> T:
        deadline = time.monotonic() + timeout_s
        while not until(value := self.run(call)):
            if time.monotonic() + interval_s > deadline:
                raise TimeoutError(f"{call.method} {call.path}: still not done after {timeout_s} s")
            time.sleep(interval_s)
        return value


class AsyncExecutor(_HttpHolder[httpx.AsyncClient]):
    http_class = httpx.AsyncClient

    async def run(self, call: Call[T]) -> T:
        steps = exchange(call, build_request(self.http, self.config, call), self.config.retry)
        step = advance(steps, None)
        while not isinstance(step, Done):
            step = advance(steps, await self._carry_out(step))
        return step.value

    async def _carry_out(self, step: Step) -> Outcome:
        if isinstance(step, Sleep):
            await asyncio.sleep(step.seconds)
            return None
        assert isinstance(step, Send)
        try:
            return await self.http.send(step.request)
        except httpx.TransportError as error:
            return error

    async def items(
        self, page_call: Callable[[str | None], Call[Page[T]]], cursor: str | None
    ) -> AsyncIterator[T]:
        while True:
            page = await self.run(page_call(cursor))
            for item in page.items:
                yield item
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def poll(self, call: Call[T], until: Callable[[T], bool], timeout_s: float, interval_s: float) -> T:
        deadline = time.monotonic() + timeout_s
        while not until(value := await self.run(call)):
            if time.monotonic() + interval_s > deadline:
                raise TimeoutError(f"{call.method} {call.path}: still not done after {timeout_s} s")
            await asyncio.sleep(interval_s)
        return value


E = TypeVar("E", bound=SyncExecutor | AsyncExecutor)


class Resource(Generic[E]):
    """A group of operations, bound to the client's executor."""

    def __init__(self, executor: E) -> None:
        self._executor = executor


class operation(Generic[P, T]):  # noqa: N801 - used as a decorator
    """A method that builds a ``Call[T]``, run by the executor of the resource it is read from."""

    def __init__(self, build: Callable[Concatenate[Any, P], Call[T]]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, resource: None, owner: type) -> Self: ...
    @overload
    def __get__(self, resource: Resource[SyncExecutor], owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, resource: Resource[AsyncExecutor], owner: type
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, resource: Resource[Any] | None, owner: type) -> Any:
        if resource is None:
            return self
        build, executor = self.build, resource._executor

        def run(*args: P.args, **kwargs: P.kwargs) -> Any:
            return executor.run(build(resource, *args, **kwargs))

        run.__doc__ = build.__doc__
        run.__name__ = build.__name__
        return run


class paginated(Generic[P, T]):  # noqa: N801 - used as a decorator
    """From a list call's builder (which takes ``cursor=``): every item of every page, from
    ``cursor`` (the first page when None) to the last page."""

    def __init__(self, build: Callable[Concatenate[Any, P], Call[Page[T]]]) -> None:
        self.build = build

    @overload
    def __get__(self, resource: None, owner: type) -> Self: ...
    @overload
    def __get__(self, resource: Resource[SyncExecutor], owner: type) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, resource: Resource[AsyncExecutor], owner: type) -> Callable[P, AsyncIterator[T]]: ...
    def __get__(self, resource: Resource[Any] | None, owner: type) -> Any:
        if resource is None:
            return self
        build, executor = self.build, resource._executor

        def iterate(*args: P.args, **kwargs: P.kwargs) -> Any:
            start = kwargs.pop("cursor", None)
            return executor.items(lambda cursor: build(resource, *args, cursor=cursor, **kwargs), start)

        iterate.__doc__ = f"Every item of every page of {build.__name__}."
        return iterate


class polled(Generic[P, T]):  # noqa: N801 - used as a decorator
    """From a read's builder: read again every ``poll_interval_s`` until ``until`` holds for the
    answer (its last answer), or raise ``TimeoutError`` after ``timeout_s``."""

    def __init__(self, build: Callable[Concatenate[Any, P], Call[T]], until: Callable[[T], bool]) -> None:
        self.build = build
        self.until = until

    @overload
    def __get__(self, resource: None, owner: type) -> Self: ...
    @overload
    def __get__(self, resource: Resource[SyncExecutor], owner: type) -> Callable[..., T]: ...
    @overload
    def __get__(
        self, resource: Resource[AsyncExecutor], owner: type
    ) -> Callable[..., Coroutine[Any, Any, T]]: ...
    def __get__(self, resource: Resource[Any] | None, owner: type) -> Any:
        if resource is None:
            return self
        build, executor, until = self.build, resource._executor, self.until

        def wait(*args: Any, timeout_s: float = 300.0, poll_interval_s: float = 1.0, **kwargs: Any) -> Any:
            return executor.poll(build(resource, *args, **kwargs), until, timeout_s, poll_interval_s)

        wait.__doc__ = f"{build.__name__} again until it is done (timeout_s, poll_interval_s)."
        return wait
