"""What a local function worker reports of each invocation (roomcast_dev.functions.InvocationTiming):
its time, its worker's CPU time and peak memory, as bench/cost_model.py prices Lambda duration from them."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace

import pytest

from roomcast_dev.functions import FunctionError, LocalFunction
from tests.soak.test_worker_kills import SLEEPER


@pytest.fixture
def sleeper() -> Iterator[LocalFunction]:
    function = LocalFunction(SLEEPER, {}, max_concurrency=1)
    yield function
    function.stop()


def test_a_sleeping_invocation_takes_time_but_little_cpu_and_a_spinning_one_takes_both(
    sleeper: LocalFunction,
) -> None:
    # When
    sleeper.invoke({"sleepSeconds": 0.3})
    sleeper.invoke({"spinSeconds": 0.3})

    # Then
    slept, spun = sleeper.timings
    assert slept.duration_ms >= 300
    assert slept.cpu_ms < 100
    assert spun.duration_ms >= 300
    assert spun.cpu_ms >= 250  # CPU time of the worker, whatever else the machine runs
    assert slept.aws_wait_ms == spun.aws_wait_ms == 0  # no AWS call made
    assert 5 < slept.max_memory_mb <= spun.max_memory_mb < 1024


def test_a_failed_invocation_is_timed_too(sleeper: LocalFunction) -> None:
    with pytest.raises(FunctionError) as raised:
        sleeper.invoke({"raise": "boom"})

    assert raised.value.kind == "RuntimeError"
    [failed] = sleeper.timings
    assert failed.duration_ms > 0
    assert failed.max_memory_mb > 0


def test_an_invocation_past_its_timeout_is_stopped_and_logged_as_lambda_logs_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Given: a warm worker of a function with a one-second timeout
    function = LocalFunction(replace(SLEEPER, timeout_seconds=1), {}, max_concurrency=1)
    try:
        function.invoke({"sleepSeconds": 0})

        # When: an invocation runs past it
        with (
            caplog.at_level(logging.WARNING, logger="roomcast_dev.functions"),
            pytest.raises(FunctionError) as raised,
        ):
            function.invoke({"sleepSeconds": 30})
    finally:
        function.stop()

    # Then: it fails as a timeout, and the stack's log says so, as the function's log would on Lambda
    assert raised.value.kind == "Timeout"
    assert any(
        "SleeperFunction" in r.message and "Task timed out after 1.00 seconds" in r.message
        for r in caplog.records
    )
