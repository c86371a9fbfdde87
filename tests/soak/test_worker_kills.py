"""A local function worker killed with SIGKILL behaves as a crashed Lambda execution environment:
the invocation it was running fails, and the next invocation gets a fresh worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from roomcast_dev.functions import FunctionError, LocalFunction
from roomcast_dev.template import FunctionSpec

SLEEPER = FunctionSpec(
    logical_id="SleeperFunction",
    name="sleeper",
    handler="sleeper_handler.lambda_handler",
    code_path=Path(__file__).parent / "fixtures" / "sleeper",
    layer_paths=(),
    environment={},
    timeout_seconds=10,
    memory_mb=128,
)


@pytest.fixture
def sleeper() -> Iterator[LocalFunction]:
    function = LocalFunction(SLEEPER, {}, max_concurrency=2)
    yield function
    function.stop()


def _kill_when_busy(function: LocalFunction, timeout_seconds: float = 10.0) -> int:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        pid = function.kill_worker()
        if pid is not None:
            return pid
        time.sleep(0.01)
    raise AssertionError(f"no busy worker within {timeout_seconds} s")


def test_killing_a_busy_worker_fails_its_invocation_and_the_next_one_gets_a_new_worker(
    sleeper: LocalFunction,
) -> None:
    # Given: an invocation that takes a while
    failures: list[FunctionError] = []

    def invoke_slowly() -> None:
        try:
            sleeper.invoke({"sleepSeconds": 30})
        except FunctionError as error:
            failures.append(error)

    caller = threading.Thread(target=invoke_slowly)
    caller.start()

    # When: its worker is killed mid-invocation
    killed_pid = _kill_when_busy(sleeper)
    caller.join(timeout=10)

    # Then: the invocation failed as crashed, at once, and the next one runs in another process
    assert not caller.is_alive()
    assert [error.kind for error in failures] == ["Crashed"]
    assert sleeper.crashes == 1
    assert sleeper.invoke({})["pid"] != killed_pid


def test_an_idle_worker_that_died_is_replaced_without_failing_the_next_invocation(
    sleeper: LocalFunction,
) -> None:
    # Given: a warm worker, then killed while idle
    warm_pid = sleeper.invoke({})["pid"]
    assert sleeper.kill_worker() is None  # nothing busy
    assert sleeper.kill_worker(busy_only=False) == warm_pid

    # When
    answer = sleeper.invoke({})

    # Then
    assert answer["pid"] != warm_pid
    assert sleeper.crashes == 0
