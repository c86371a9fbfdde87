"""How `make test` shares the two cores (pytest-xdist, ``--dist loadgroup``).

Each test file runs on one worker, so its module-scoped fixtures (a local stack, a Spark session)
start once; every test that runs Spark runs on the same worker, so two JVMs never compete for
the cores. Most of an end-to-end test's time is waiting for the local stack, which is what the
second worker fills.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_TESTS = Path(__file__).resolve().parent
# The smoke suite runs against a stack named by its environment (`make smoke`, which sets
# ROOMCAST_SMOKE); `make test` runs it in a process of its own (tests/process/test_smoke_suite.py).
collect_ignore = [] if os.environ.get("ROOMCAST_SMOKE") else ["smoke"]
# Files whose tests start Spark (the Glue jobs' code on local PySpark).
_SPARK_FILES = {_TESTS / "e2e" / "test_delivery_analytics.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        path = Path(str(item.path)).resolve()
        spark = path.parent == _TESTS / "glue" or path in _SPARK_FILES
        item.add_marker(pytest.mark.xdist_group("spark" if spark else str(path.relative_to(_TESTS))))
