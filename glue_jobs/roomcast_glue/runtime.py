"""What both Glue job entrypoints need besides their transforms: where they run, the Spark session,
and the day a run is for. Under Glue ``awsglue`` is importable; anywhere else the jobs run on plain
PySpark (the local stack, the tests, ``make compact``)."""

from __future__ import annotations

import importlib.util
from datetime import UTC, date, datetime, timedelta

from pyspark.sql import SparkSession

ON_GLUE = importlib.util.find_spec("awsglue") is not None


def resolve_date(value: str | None) -> str:
    """YYYY-MM-DD; ``today`` (or nothing) and ``yesterday`` (what the nightly trigger passes) in UTC."""
    today = datetime.now(UTC).date()
    named = {None: today, "": today, "today": today, "yesterday": today - timedelta(days=1)}
    return (named.get(value) or date.fromisoformat(str(value))).isoformat()


def spark_session(app_name: str) -> SparkSession:
    """Glue's session under Glue, a local one elsewhere; timestamps in UTC either way."""
    if ON_GLUE:
        from awsglue.context import GlueContext  # type: ignore[import-not-found]
        from pyspark import SparkContext

        spark: SparkSession = GlueContext(SparkContext.getOrCreate()).spark_session
    else:
        spark = SparkSession.builder.appName(app_name).getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return spark
