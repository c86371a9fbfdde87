"""Glue job: a day's delivery figures per room and subscription (docs/delivery-log.md).

Under Glue (``awsglue`` importable) the arguments come from the job run; anywhere else:

    python glue_jobs/analytics_job.py --source DIR --target DIR --date 2026-11-22

Reads ``{source}/compacted/dt=D/`` (what compact_job.py wrote) and replaces
``{target}/analytics/daily/dt=D/`` with one Parquet file. Prints a JSON summary line.
"""

from __future__ import annotations

import argparse
import json
import sys

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession, functions as sf

from roomcast_glue.runtime import ON_GLUE, resolve_date, spark_session
from roomcast_glue.schema import COMPACTED
from roomcast_glue.transforms import ANALYTICS_KEY, daily_analytics


def arguments(argv: list[str]) -> dict[str, str]:
    """--source, --target, --date (YYYY-MM-DD, ``today`` or ``yesterday``)."""
    if ON_GLUE:
        from awsglue.utils import getResolvedOptions  # type: ignore[import-not-found]

        return dict(getResolvedOptions(argv, ["source", "target", "date"]))
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for name in ("source", "target", "date"):
        parser.add_argument(f"--{name}", required=True)
    return dict(vars(parser.parse_args(argv[1:])))


def run_analytics(spark: SparkSession, source: str, target: str, date: str) -> DataFrame:
    """Write day ``date``'s figures to ``{target}/analytics/daily/dt={date}/``; they are returned too.

    No compacted partition (a day without traffic) gives an empty result, written as such.
    """
    try:
        records = spark.read.schema(COMPACTED).parquet(f"{source.rstrip('/')}/compacted/dt={date}/")
    except AnalysisException as error:
        if error.getCondition() != "PATH_NOT_FOUND":
            raise
        records = spark.createDataFrame([], COMPACTED)
    # Kept in memory (a row per subscription): the caller reads what was written without recomputing it.
    figures = daily_analytics(records).filter(sf.col("dt") == date).orderBy(*ANALYTICS_KEY).cache()
    output = f"{target.rstrip('/')}/analytics/daily/dt={date}"
    figures.drop("dt").coalesce(1).write.mode("overwrite").parquet(output)
    return figures


def main(argv: list[str] | None = None) -> int:
    options = arguments(sys.argv if argv is None else ["analytics_job.py", *argv])
    spark = spark_session("roomcast-analytics")
    date = resolve_date(options["date"])
    figures = run_analytics(spark, options["source"], options["target"], date)
    rows = figures.count()
    summary = {"job": "analytics", "date": date, "rows": rows}
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
