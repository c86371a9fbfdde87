"""How `make test` shares the two cores (pytest-xdist, three workers, ``--dist loadgroup``;
docs/decisions/0042-three-test-workers.md).

Every test that runs Spark runs on the same worker, so two JVMs never compete for the cores; the
other tests are spread one by one over the workers by load (a whole file per worker left the
longest files, the API conformance run among them, at the end of the run with the other worker idle:
over 15 minutes, against 13 with the tests spread).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

_TESTS = Path(__file__).resolve().parent
# No per-example deadline for property tests: a wall-clock deadline measures the machine, not the
# code (a busy machine once took 2.3 s over an example that takes 1 ms, failing a run as "flaky").
settings.register_profile("roomcast", deadline=None)
settings.load_profile("roomcast")
# The smoke suite runs against a stack named by its environment (`make smoke`, which sets
# ROOMCAST_SMOKE); `make test` runs it in a process of its own (tests/process/test_smoke_suite.py).
collect_ignore = [] if os.environ.get("ROOMCAST_SMOKE") else ["smoke"]
# Files whose tests start Spark (the Glue jobs' code on local PySpark).
_SPARK_FILES = {_TESTS / "e2e" / "test_delivery_analytics.py"}


# Before xdist's own hook, which reads the groups into the tests' ids: run after it, the group was
# never seen and the Spark tests were spread over both workers, two JVMs side by side.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.parent == _TESTS / "glue" or path in _SPARK_FILES:
            item.add_marker(pytest.mark.xdist_group("spark"))
