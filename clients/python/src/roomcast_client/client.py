"""``Client`` (sync) and ``AsyncClient``: configuration, the HTTP connection pool and the
resources, all sharing the operations written once in ``resources``."""

from __future__ import annotations

import os
from types import TracebackType
from typing import ClassVar, Generic, Self

import httpx

from roomcast_client import __version__
from roomcast_client._core import Config
from roomcast_client._executors import AsyncExecutor, E, SyncExecutor
from roomcast_client.resources import (
    Alerts,
    ApiKeys,
    DeadLetters,
    Deliveries,
    EventTypes,
    Filters,
    Jobs,
    Messages,
    Metrics,
    OrderingKeys,
    PortalSessions,
    PortalSettings,
    PullOperations,
    Rooms,
    Subscriptions,
)
from roomcast_client.retry import RetryPolicy
from roomcast_client.settings import (
    API_KEY_VARIABLE,
    STATE_FILE_VARIABLE,
    URL_VARIABLE,
    current_folder,
    resolve_settings,
)

# What a ConfigurationError adds: the third place the URL and key are found (settings.py).
_LOCAL_STACK_HINT = (
    f"or start the local stack (make run) and run from the project's folder (or point "
    f"{STATE_FILE_VARIABLE} at its .local/stack.json)"
)


class ConfigurationError(ValueError):
    """The client was given no URL or key, and neither the environment nor a running local stack
    has one."""


def make_config(base_url: str | None, api_key: str | None, timeout_s: float, retry: RetryPolicy) -> Config:
    settings = resolve_settings(base_url, api_key, os.environ, current_folder())
    url, key = settings.api_url, settings.api_key
    if not url:
        raise ConfigurationError(f"no API URL: pass base_url=, set {URL_VARIABLE}, {_LOCAL_STACK_HINT}")
    if not key:
        raise ConfigurationError(f"no API key: pass api_key=, set {API_KEY_VARIABLE}, {_LOCAL_STACK_HINT}")
    return Config(url.rstrip("/") + "/", key, timeout_s, retry, f"roomcast-client-python/{__version__}")


class _Api(PullOperations[E], Generic[E]):
    """What both clients share: configuration and every resource, bound to one executor."""

    _executor_class: ClassVar[type[SyncExecutor] | type[AsyncExecutor]]

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout_s: float = 30.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        http: httpx.Client | httpx.AsyncClient | None = None,
    ) -> None:
        self.config = make_config(base_url, api_key, timeout_s, retry or RetryPolicy(max_retries=max_retries))
        executor: E = self._executor_class(self.config, http)  # type: ignore[assignment]
        super().__init__(executor)
        self.rooms: Rooms[E] = Rooms(executor)
        self.subscriptions: Subscriptions[E] = Subscriptions(executor)
        self.filters: Filters[E] = Filters(executor)
        self.event_types: EventTypes[E] = EventTypes(executor)
        self.messages: Messages[E] = Messages(executor)
        self.deliveries: Deliveries[E] = Deliveries(executor)
        self.dead_letters: DeadLetters[E] = DeadLetters(executor)
        self.jobs: Jobs[E] = Jobs(executor)
        self.ordering_keys: OrderingKeys[E] = OrderingKeys(executor)
        self.api_keys: ApiKeys[E] = ApiKeys(executor)
        self.metrics: Metrics[E] = Metrics(executor)
        self.alerts: Alerts[E] = Alerts(executor)
        self.portal_sessions: PortalSessions[E] = PortalSessions(executor)
        self.portal_settings: PortalSettings[E] = PortalSettings(executor)


class Client(_Api[SyncExecutor]):
    """The roomcast API, synchronously. ``base_url``/``api_key`` default to ``ROOMCAST_URL`` and
    ``ROOMCAST_API_KEY``, then to a running local stack's (``make run``: ``settings.py``), as the
    ``roomcast`` CLI finds them. Use as a context manager, or call ``close()``.

    ``timeout_s`` bounds each HTTP request (a long-polling pull waits at most 20 s: keep it above
    that); ``max_retries`` bounds retries of 429, 502-504 and transport errors (``retry`` sets the
    whole ``RetryPolicy``); ``http`` is an ``httpx.Client`` of your own (proxies, TLS, transports,
    event hooks): the SDK sets the URL and key on each request, and leaves it open on close."""

    _executor_class = SyncExecutor

    def close(self) -> None:
        if self._executor.owns_http:
            self._executor.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class AsyncClient(_Api[AsyncExecutor]):
    """The roomcast API for asyncio: every operation of ``Client``, awaited; ``iter`` methods are
    async iterators. Use as an async context manager, or ``await aclose()``."""

    _executor_class = AsyncExecutor

    async def aclose(self) -> None:
        if self._executor.owns_http:
            await self._executor.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()
