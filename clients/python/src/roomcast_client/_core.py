"""The request-building core shared by ``Client`` and ``AsyncClient``.

A resource method builds a ``Call`` — method, path, query, body, headers, how to read the answer
and whether repeating it is safe — and never does I/O. ``exchange`` is the whole conversation for
one call (send, read, retry or raise) as a generator that yields what to do next (send a request,
sleep); the sync and async executors only carry those steps out.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
import pydantic

from roomcast_client.errors import ResponseError, TransportError, error_from_response
from roomcast_client.models import Page
from roomcast_client.retry import RetryPolicy, retry_delay_s

T = TypeVar("T")
M = TypeVar("M", bound=pydantic.BaseModel)

Parse = Callable[[httpx.Response], T]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API operation, described: what to send and how to read the answer."""

    method: str
    path: str
    parse: Parse[T]
    params: Mapping[str, Any] | None = None
    json: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # Whether sending it twice has the effect of sending it once (GET, PATCH, DELETE, a keyed
    # publish, ack/nack/extend with the same receipts). Unsafe calls retry only when the request
    # certainly did not reach the API.
    retry_safe: bool = True
    # Statuses retried for this call only (a keyed publish's 409: the same key still in progress).
    extra_retryable_statuses: frozenset[int] = frozenset()


def segment(value: str) -> str:
    """A path parameter, escaped: an id with '/' or '?' names nothing rather than another path."""
    return quote(value, safe="")


def query(**values: Any) -> dict[str, Any]:
    """The query parameters that were given (None means absent)."""
    return {name: value for name, value in values.items() if value is not None}


def to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def wire_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Request fields by the API's names: ``delivery_delay_ms`` and ``deliveryDelayMs`` both work.
    Nested values are sent as given (pydantic models as their API JSON)."""
    return {to_camel(name): _wire_value(value) for name, value in fields.items()}


def _wire_value(value: Any) -> Any:
    if isinstance(value, datetime):  # deliver_at: RFC 3339 with its offset (a naive one is UTC)
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.isoformat()
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list | tuple):
        return [_wire_value(item) for item in value]
    return value


def _json_of(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as error:
        raise ResponseError(f"{response.status_code} answer is not JSON: {response.text[:200]!r}") from error


def read_model(
    model: type[M],
) -> Parse[M]:
    def parse(response: httpx.Response) -> M:
        try:
            return model.model_validate(_json_of(response))
        except pydantic.ValidationError as error:
            raise ResponseError(f"unexpected {model.__name__} answer: {error}") from error

    return parse


def read_list(model: type[M], key: str) -> Parse[list[M]]:
    def parse(response: httpx.Response) -> list[M]:
        body = _json_of(response)
        try:
            return [model.model_validate(item) for item in body[key]]
        except (pydantic.ValidationError, KeyError, TypeError) as error:
            raise ResponseError(f"unexpected {key} list answer: {error}") from error

    return parse


def read_page(model: type[M], key: str) -> Parse[Page[M]]:
    """A list answer (``{"<key>": [...], "nextCursor": ...}``) as a ``Page``."""
    items = read_list(model, key)

    def parse(response: httpx.Response) -> Page[M]:
        listed = items(response)  # raises ResponseError unless the body is an object with the list
        cursor = _json_of(response).get("nextCursor")
        return Page[M](items=listed, next_cursor=cursor if isinstance(cursor, str) else None)

    return parse


def read_document(response: httpx.Response) -> dict[str, Any]:
    """A JSON object answered as it is (an exported document)."""
    document = _json_of(response)
    if not isinstance(document, dict):
        raise ResponseError(f"expected a JSON object, got {type(document).__name__}")
    return document


def read_nothing(response: httpx.Response) -> None:
    return None


@dataclass(frozen=True)
class Config:
    base_url: str
    api_key: str
    timeout_s: float
    retry: RetryPolicy
    user_agent: str


@dataclass(frozen=True)
class Send:
    request: httpx.Request


@dataclass(frozen=True)
class Sleep:
    seconds: float


Step = Send | Sleep
# What the executor hands back for a Send: the answer, or the transport error it raised.
Outcome = httpx.Response | httpx.TransportError | None


def build_request(client: httpx.Client | httpx.AsyncClient, config: Config, call: Call[Any]) -> httpx.Request:
    """The HTTP request of ``call``: the URL and the key are set on each request, so an
    ``httpx`` client of the user's own needs neither."""
    return client.build_request(
        call.method,
        config.base_url + call.path.lstrip("/"),
        params=dict(call.params) if call.params else None,
        json=call.json,
        headers={
            "Authorization": f"Bearer {config.api_key}",
            "User-Agent": config.user_agent,
            **call.headers,
        },
    )


def _never_sent(error: httpx.TransportError) -> bool:
    """Whether the request certainly did not reach the API (no connection was opened)."""
    return isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


def exchange(
    call: Call[T],
    request: httpx.Request,
    policy: RetryPolicy,
    *,
    uniform: Callable[[float, float], float] = random.uniform,
    now_epoch_s: Callable[[], float] = time.time,
) -> Generator[Step, Outcome, T]:
    """Send ``request``, retrying as ``policy`` and ``call`` allow; the parsed answer, or raise
    the typed ``ApiError`` (or ``TransportError``) of the last attempt."""
    retry_number = 0
    while True:
        outcome = yield Send(request)
        if isinstance(outcome, httpx.TransportError):
            delay = retry_delay_s(
                policy,
                retry_number,
                status=None,
                reached_api=not _never_sent(outcome),
                retry_safe=call.retry_safe,
                uniform=uniform,
            )
            if delay is None:
                raise TransportError(
                    f"{call.method} {request.url}: {type(outcome).__name__}: {outcome}"
                ) from (outcome)
        else:
            assert outcome is not None
            if outcome.is_success:
                return call.parse(outcome)
            error = error_from_response(outcome, now_epoch_s())
            delay = retry_delay_s(
                policy,
                retry_number,
                status=outcome.status_code,
                retry_after_s=error.retry_after_s,
                retry_safe=call.retry_safe,
                extra_retryable_statuses=call.extra_retryable_statuses,
                uniform=uniform,
            )
            if delay is None:
                raise error
        retry_number += 1
        yield Sleep(delay)
