"""One local SparkSession for every Glue test (starting one takes seconds)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from roomcast_dev.glue_local import local_spark

# The jobs import roomcast_glue from beside them (on Glue, their one-file script puts it on the path).
GLUE_JOBS_DIR = Path(__file__).resolve().parents[2] / "glue_jobs"
if str(GLUE_JOBS_DIR) not in sys.path:
    sys.path.insert(0, str(GLUE_JOBS_DIR))


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers run this interpreter
    session: SparkSession = local_spark("roomcast-glue-tests")
    yield session
    session.stop()
