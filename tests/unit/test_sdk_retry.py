"""The SDK's retry decisions and its conversation with the API (``exchange``), without a network:
which failures are retried, how long each wait is, and what is raised in the end."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import httpx
import pytest

from roomcast_client import NotFound, RateLimited, RetryPolicy, ServerError, TransportError
from roomcast_client._core import Call, Outcome, Send, Sleep, Step, exchange, read_model
from roomcast_client.models import ApiModel
from roomcast_client.retry import backoff_delay_s, retry_delay_s

POLICY = RetryPolicy(max_retries=3, base_delay_s=0.5, max_delay_s=4.0, max_retry_after_s=60.0)


def upper_bound(low: float, high: float) -> float:
    """A ``uniform`` that always draws the top of the range (the jitter's ceiling)."""
    return high


@pytest.mark.parametrize(
    ("retry_number", "ceiling_s"), [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 4.0), (10, 4.0)]
)
def test_the_backoff_ceiling_doubles_up_to_the_maximum(retry_number: int, ceiling_s: float) -> None:
    # When / Then
    assert backoff_delay_s(POLICY, retry_number, upper_bound) == ceiling_s


def test_full_jitter_draws_between_zero_and_the_ceiling() -> None:
    # Given
    ranges: list[tuple[float, float]] = []

    def record(low: float, high: float) -> float:
        ranges.append((low, high))
        return (low + high) / 2

    # When
    delay = backoff_delay_s(POLICY, 2, record)

    # Then
    assert ranges == [(0.0, 2.0)]
    assert delay == 1.0


@pytest.mark.parametrize(
    ("status", "retry_safe", "retried"),
    [
        (429, True, True),
        (429, False, True),  # throttled by the gateway: the request never ran
        (502, True, True),
        (503, True, True),
        (504, True, True),
        (503, False, False),  # a create that timed out may have happened
        (500, True, False),
        (400, True, False),
        (404, True, False),
        (409, True, False),
        (422, True, False),
    ],
)
def test_which_statuses_are_retried(status: int, retry_safe: bool, retried: bool) -> None:
    # When
    delay = retry_delay_s(POLICY, 0, status=status, retry_safe=retry_safe, uniform=upper_bound)

    # Then
    assert (delay is not None) is retried


@pytest.mark.parametrize(
    ("reached_api", "retry_safe", "retried"),
    [(False, False, True), (True, False, False), (True, True, True), (False, True, True)],
)
def test_a_transport_error_is_retried_when_safe_or_when_nothing_was_sent(
    reached_api: bool, retry_safe: bool, retried: bool
) -> None:
    # When
    delay = retry_delay_s(POLICY, 0, status=None, reached_api=reached_api, retry_safe=retry_safe)

    # Then
    assert (delay is not None) is retried


def test_retry_after_lengthens_the_wait_but_never_shortens_it() -> None:
    # When / Then
    assert retry_delay_s(POLICY, 0, status=429, retry_after_s=7, uniform=upper_bound) == 7
    assert retry_delay_s(POLICY, 2, status=429, retry_after_s=1, uniform=upper_bound) == 2.0


def test_a_retry_after_longer_than_the_policy_accepts_gives_up_at_once() -> None:
    # When / Then
    assert retry_delay_s(POLICY, 0, status=429, retry_after_s=3600) is None


def test_no_retry_after_max_retries() -> None:
    # When / Then
    assert retry_delay_s(POLICY, 3, status=503) is None
    assert retry_delay_s(RetryPolicy(max_retries=0), 0, status=503) is None


# -- the conversation ---------------------------------------------------------------------------

REQUEST = httpx.Request("DELETE", "https://api.example/rooms/r/subscriptions/s/deliveries")


class ClearResult(ApiModel):
    """An answer to parse (what the call answers does not matter to retrying it)."""

    cleared: int


def clear_call(**overrides: Any) -> Call[ClearResult]:
    return Call("DELETE", "/rooms/r/subscriptions/s/deliveries", read_model(ClearResult), **overrides)


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers, request=REQUEST)


def play(steps: Generator[Step, Outcome, Any], outcomes: list[Outcome]) -> tuple[list[Step], Any]:
    """Answer each Send with the next outcome; the steps taken and the result."""
    taken: list[Step] = []
    step = next(steps)
    try:
        while True:
            taken.append(step)
            step = steps.send(outcomes.pop(0) if isinstance(step, Send) else None)
    except StopIteration as done:
        return taken, done.value


def test_a_503_then_a_200_is_retried_once_after_a_backoff() -> None:
    # Given
    steps = exchange(clear_call(), REQUEST, POLICY, uniform=upper_bound)

    # When
    taken, result = play(
        steps, [answer(503, {"message": "Service Unavailable"}), answer(200, {"cleared": 2})]
    )

    # Then
    assert [type(step) for step in taken] == [Send, Sleep, Send]
    assert taken[1] == Sleep(0.5)
    assert result == ClearResult(cleared=2)


def test_a_429_waits_for_its_retry_after() -> None:
    # Given
    steps = exchange(clear_call(), REQUEST, POLICY, uniform=upper_bound)

    # When
    taken, _ = play(
        steps,
        [answer(429, {"message": "Too Many Requests"}, {"Retry-After": "5"}), answer(200, {"cleared": 0})],
    )

    # Then
    assert taken[1] == Sleep(5.0)


def test_the_last_failure_is_raised_when_the_retries_are_used_up() -> None:
    # Given
    steps = exchange(clear_call(), REQUEST, RetryPolicy(max_retries=2, base_delay_s=0), uniform=upper_bound)

    # When / Then
    with pytest.raises(ServerError) as raised:
        play(steps, [answer(503, {"message": "Service Unavailable"}) for _ in range(3)])
    assert (raised.value.status, raised.value.code) == (503, "service_unavailable")


def test_a_429_past_the_retries_is_raised_with_its_retry_after() -> None:
    # Given
    steps = exchange(clear_call(), REQUEST, RetryPolicy(max_retries=0))

    # When / Then
    with pytest.raises(RateLimited) as raised:
        play(steps, [answer(429, {"message": "Too Many Requests"}, {"Retry-After": "9"})])
    assert raised.value.retry_after_s == 9


def test_a_404_is_raised_at_once() -> None:
    # Given
    steps = exchange(clear_call(), REQUEST, POLICY)

    # When / Then
    with pytest.raises(NotFound):
        play(steps, [answer(404, {"error": {"code": "not_found", "message": "no such room", "details": []}})])


def test_an_unsafe_call_is_not_repeated_after_a_read_timeout_but_is_after_a_refused_connection() -> None:
    # Given a create, which the API would perform twice
    unsafe = clear_call(retry_safe=False)

    # When
    refused_then_ok, _ = play(
        exchange(unsafe, REQUEST, POLICY, uniform=upper_bound),
        [httpx.ConnectError("refused"), answer(200, {"cleared": 0})],
    )

    # Then
    assert [type(step) for step in refused_then_ok] == [Send, Sleep, Send]
    with pytest.raises(TransportError) as raised:
        play(exchange(unsafe, REQUEST, POLICY), [httpx.ReadTimeout("no answer")])
    assert isinstance(raised.value.__cause__, httpx.ReadTimeout)


def test_statuses_retried_for_one_call_only() -> None:
    # Given a keyed publish: its 409 is the same key still in progress
    keyed = clear_call(extra_retryable_statuses=frozenset({409}))
    in_progress = {"error": {"code": "conflict", "message": "in progress", "details": []}}

    # When
    taken, result = play(
        exchange(keyed, REQUEST, POLICY, uniform=upper_bound),
        [answer(409, in_progress), answer(200, {"cleared": 1})],
    )

    # Then
    assert [type(step) for step in taken] == [Send, Sleep, Send]
    assert result.cleared == 1
