"""A local function whose process registers an internal extension (roomcast.platform.after_answer)
is run as Lambda runs it: the answer comes back as soon as the handler returns, the worker stays busy
until the extension asks for its next event, and an extension still working at the deadline ends the
environment (roomcast_dev.functions, roomcast_dev.lambda_extensions)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from roomcast_dev.functions import LocalFunction
from roomcast_dev.template import FunctionSpec
from tests.support import PROJECT_ROOT

AFTER_ANSWER = FunctionSpec(
    logical_id="AfterAnswerFunction",
    name="after-answer",
    handler="after_answer_handler.lambda_handler",
    code_path=Path(__file__).parent / "fixtures" / "after_answer",
    layer_paths=(PROJECT_ROOT / "layers" / "shared",),
    environment={"POWERTOOLS_METRICS_DISABLED": "true"},
    timeout_seconds=10,
    memory_mb=128,
)


@pytest.fixture
def function() -> Iterator[LocalFunction]:
    function = LocalFunction(AFTER_ANSWER, {}, max_concurrency=1)
    yield function
    function.stop()


def test_the_answer_comes_before_the_extension_is_done_and_the_invocation_is_timed_to_its_end(
    function: LocalFunction, tmp_path: Path
) -> None:
    # Given
    done = tmp_path / "done"

    # When
    answer = function.invoke({"afterSeconds": 1.0, "doneFile": str(done)})

    # Then: answered with the work still to do; the worker's next invocation waits for it
    assert answer["registered"] is True
    assert not done.exists()
    function.invoke({"doneFile": str(tmp_path / "second")})
    assert done.exists()
    first = function.timings[0]
    assert first.duration_ms >= 1000  # the invocation is billed to the extension's end


def test_an_extension_still_working_at_the_deadline_ends_its_environment(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Given: a function with a one-second timeout whose extension works for 30 s
    function = LocalFunction(replace(AFTER_ANSWER, timeout_seconds=1), {}, max_concurrency=1)
    try:
        with caplog.at_level(logging.WARNING, logger="roomcast_dev.functions"):
            first = function.invoke({"afterSeconds": 30, "doneFile": str(tmp_path / "never")})

            # When: the next invocation comes
            second = function.invoke({"doneFile": str(tmp_path / "second")})
    finally:
        function.stop()

    # Then: the first was answered; its worker was stopped at the deadline, the next got a new one
    assert first["pid"] != second["pid"]
    assert any("Task timed out after 1.00 seconds" in r.message for r in caplog.records)
    assert not (tmp_path / "never").exists()
