"""`make invoke` (roomcast_dev.invoke: `sam local invoke` without Docker) runs every events/*.json
file on its function against the running local stack (the template's handler, layers and
environment, in a process of its own) and prints exactly the answer tests/support.py documents."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from roomcast_dev.openapi import merged_document
from roomcast_dev.stack import LocalStack
from roomcast_dev.stack_state import write_state
from tests.support import (
    actual_response,
    expected_response,
    function_of,
    sample_events,
)

ROOT = Path(__file__).resolve().parents[2]


def _invoke(arguments: list[str], state_file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own module, with this interpreter
        [sys.executable, "-m", "roomcast_dev.invoke", *arguments, "--state-file", str(state_file)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def state_file(empty_stack: LocalStack, tmp_path: Path) -> Path:
    """Where `make invoke` finds the running stack (as `make run` records it in .local/)."""
    path = tmp_path / "stack.json"
    write_state(empty_stack.endpoint_url, empty_stack.api_url, empty_stack.model.outputs, None, path=path)  # type: ignore[union-attr]
    return path


@pytest.mark.parametrize("event_file", sample_events(), ids=lambda path: path.name)
def test_make_invoke_runs_each_sample_event_on_its_function(
    event_file: Path, empty_stack: LocalStack, state_file: Path
) -> None:
    # Given: an empty stack (make invoke adds the sample tenant the events name)
    assert empty_stack.model is not None

    # When
    run = _invoke([function_of(event_file), str(event_file.relative_to(ROOT))], state_file)

    # Then: the answer alone on stdout, as `sam local invoke` prints it
    assert run.returncode == 0, run.stderr[-3000:]
    assert "added the sample events' tenant" in run.stderr
    answer = json.loads(run.stdout)
    assert actual_response(answer) == expected_response(event_file, merged_document(empty_stack.model))


def test_make_invoke_says_what_is_wrong_in_one_line(
    empty_stack: LocalStack, state_file: Path, tmp_path: Path
) -> None:
    event = str(sample_events()[0])

    unknown = _invoke(["NoSuchFunction", event], state_file)
    no_stack = _invoke(["PublishFunction", event], tmp_path / "none.json")
    no_event = _invoke(["PublishFunction", "events/none.json"], state_file)

    assert unknown.returncode == 2
    said = "no function 'NoSuchFunction' in template.yaml: one of AlertsFunction, AuthorizerFunction"
    assert said in unknown.stderr
    assert no_stack.returncode == 2
    assert "no local stack is running; start one with `make run`" in no_stack.stderr
    assert no_event.returncode == 2
    assert "error: the event events/none.json" in no_event.stderr
    assert unknown.stdout == no_stack.stdout == no_event.stdout == ""
