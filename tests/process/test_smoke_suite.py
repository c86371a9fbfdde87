"""`make smoke`'s suite (tests/smoke) passes against the local stack started as `make run` starts
it, in a process of its own, and leaves no room behind: the suite stays true to the stack."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 180
SUITE_SECONDS = 600
_EXPORT = re.compile(r"export ROOMCAST_URL=(\S+) ROOMCAST_API_KEY=(\S+)")


def _lines(stream: Iterator[str], into: queue.Queue[str]) -> None:
    for line in stream:  # drained to the end, so the stack never blocks on a full pipe
        into.put(line)


@pytest.fixture(scope="module")
def running_stack() -> Iterator[tuple[str, str]]:
    """`python -m roomcast_dev` (what `make run` starts) on a free port: its URL and API key."""
    process = subprocess.Popen(
        [sys.executable, "-m", "roomcast_dev", "--port", "0", "--no-state-file"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "ROOMCAST_API_KEY": ""},
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        while (found := _EXPORT.search(seen[-1] if seen else "")) is None:
            try:
                seen.append(lines.get(timeout=START_SECONDS))
            except queue.Empty:
                pytest.fail("the local stack did not start:\n" + "".join(seen))
        yield found.group(1), found.group(2)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_smoke_suite_passes_against_the_local_stack_and_leaves_nothing(
    running_stack: tuple[str, str],
) -> None:
    # Given
    url, key = running_stack

    # When
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/smoke", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**os.environ, "ROOMCAST_SMOKE": "1", "ROOMCAST_URL": url, "ROOMCAST_API_KEY": key},
        capture_output=True,
        text=True,
        timeout=SUITE_SECONDS,
        check=False,
    )

    # Then: every check ran and passed, and the tenant has no room left
    assert suite.returncode == 0, suite.stdout + suite.stderr
    assert re.search(r"\b4 passed\b", suite.stdout), suite.stdout
    rooms = requests.get(f"{url}/rooms", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert rooms.json() == {"rooms": [], "nextCursor": None}
