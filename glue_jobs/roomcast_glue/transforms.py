"""Pure transforms of the delivery log: DataFrame in, DataFrame out (docs/delivery-log.md).

Only pyspark is imported here, so every function runs the same under Glue, under spark-submit
and on the local SparkSession of the tests. Reading, writing and arguments are the job
entrypoints' business (``compact_job.py``, ``analytics_job.py``).

Time is handled as instants: a record's ``dt`` and ``hour`` are computed from its own timestamp in
UTC with integer arithmetic, so they do not depend on ``spark.sql.session.timeZone``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column, DataFrame, Window, functions as sf

from roomcast_glue.schema import COMPACTED, EVENTS, RECORD_V1, REQUIRED_FIELDS, SCHEMA_VERSION

# ISO-8601 with an offset ("Z" or ±HH:MM) and 0-6 fraction digits; log.py writes "…T…:ss.SSSZ".
TIMESTAMP_FORMAT: Final = "yyyy-MM-dd'T'HH:mm:ss[.SSSSSS]XXX"
WRITER_TIMESTAMP: Final = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"
MICROS_PER_HOUR: Final = 3_600_000_000
MICROS_PER_DAY: Final = 24 * MICROS_PER_HOUR

# The order a compacted partition is sorted in: the common queries filter on a room, then a
# subscription, then a time range (Parquet min/max statistics then skip most row groups).
COMPACTED_SORT: Final = ("roomId", "subscriptionId", "ts", "messageId", "recordId")
ANALYTICS_KEY: Final = ("dt", "tenantId", "roomId", "subscriptionId")
PERCENTILES: Final = (0.5, 0.95, 0.99)


def parse_timestamp(column: Column) -> Column:
    """An ISO-8601 string with an offset as a timestamp (an instant); null when it does not parse.

    The shape log.py writes (``2026-11-22T10:00:00.123Z``, digits checked) is cast, which is ~5x
    cheaper than the pattern and gives the same instant; any other string goes through the pattern.
    """
    pattern = sf.try_to_timestamp(column, sf.lit(TIMESTAMP_FORMAT))
    return sf.when(column.rlike(WRITER_TIMESTAMP), column.try_cast("timestamp")).otherwise(pattern)


def _blank(column: Column) -> Column:
    return column.isNull() | (sf.trim(column) == "")


def classify_lines(lines: DataFrame) -> DataFrame:
    """Raw NDJSON lines → one row per line, each parsed once: what ``parse_lines`` splits.

    Every input column is kept (``source_file`` is added as null when absent), followed by
    ``blank`` (the line is empty or whitespace: neither a record nor rejected), ``record`` (the
    RECORD_V1 struct), ``ts`` (its timestamp parsed) and ``reason`` (null for a record and for a
    blank line; otherwise why the line is rejected, as ``parse_lines`` says).
    """
    source_file = sf.col("source_file") if "source_file" in lines.columns else sf.lit(None)
    passed = [name for name in lines.columns if name not in ("value", "source_file")]
    text = lines.select(sf.col("value"), source_file.cast("string").alias("source_file"), *passed)
    text = text.withColumn("blank", sf.col("value").rlike(r"^\s*$"))

    # One column per parse step. Spark's optimizer would copy an expression into every filter
    # and projection that uses it (parsing a line ~20 times); the Generate (inline) below is a
    # barrier it does not push filters through, so each line is parsed once.
    parsed = text.withColumn("_json", sf.try_parse_json(sf.col("value")))
    parsed = parsed.select(
        "value",
        "source_file",
        *passed,
        "blank",
        sf.col("_json").isNull().alias("_invalid"),
        sf.try_variant_get(sf.col("_json"), "$.schemaVersion", "string").alias("_version"),
        sf.try_variant_get(sf.col("_json"), "$", RECORD_V1.simpleString()).alias("record"),
    )
    parsed = parsed.withColumn("ts", parse_timestamp(sf.col("record.timestamp")))
    record, version = sf.col("record"), sf.col("_version")
    missing = sf.concat_ws(", ", *[sf.when(_blank(record[name]), sf.lit(name)) for name in REQUIRED_FIELDS])
    reason = (
        sf.when(sf.col("blank"), sf.lit(None).cast("string"))
        .when(sf.col("_invalid"), sf.lit("not valid JSON"))
        # Only an object casts to the record's struct (an array, a scalar or null gives null).
        .when(record.isNull(), sf.lit("not a JSON object"))
        .when(
            sf.coalesce(version != sf.lit(str(SCHEMA_VERSION)), sf.lit(True)),
            sf.concat(sf.lit("unsupported schemaVersion: "), sf.coalesce(version, sf.lit("none"))),
        )
        .when(missing != "", sf.concat(sf.lit("missing field(s): "), missing))
        .when(
            sf.col("ts").isNull(),
            sf.concat(sf.lit("timestamp does not parse: "), record["timestamp"]),
        )
    )
    row = sf.struct("value", "source_file", *passed, "blank", "record", "ts", reason.alias("reason"))
    return parsed.select(sf.inline(sf.array(row)))


def parse_lines(lines: DataFrame) -> tuple[DataFrame, DataFrame]:
    """Raw NDJSON lines (``value``, and ``source_file`` when known) → (records, rejected).

    ``records`` has the RECORD_V1 columns plus ``source_file``; fields of the wrong type read as
    null, fields v1 does not know are dropped. ``rejected`` has ``value`` (the raw line),
    ``source_file`` and ``reason``, the first that applies of:

    - ``not valid JSON`` (duplicate keys included)
    - ``not a JSON object`` (an array, a string, a number, null)
    - ``unsupported schemaVersion: <value>`` (``none`` when absent; v1 is 1, or "1")
    - ``missing field(s): recordId, …`` (absent, null or blank; REQUIRED_FIELDS)
    - ``timestamp does not parse: <value>`` (not ISO-8601 with an offset)

    Blank lines (the newline that ends a file, whitespace) are neither records nor rejected.
    """
    classified = classify_lines(lines.select("value", *[n for n in ("source_file",) if n in lines.columns]))
    return records_of(classified).drop("ts"), rejected_of(classified)


def records_of(classified: DataFrame) -> DataFrame:
    """The records of ``classify_lines``' rows: the RECORD_V1 columns, ``source_file`` and ``ts``."""
    is_record = ~sf.col("blank") & sf.col("reason").isNull()
    return classified.filter(is_record).select("record.*", "source_file", "ts")


def rejected_of(classified: DataFrame) -> DataFrame:
    """The rejected lines of ``classify_lines``' rows: ``value``, ``source_file``, ``reason``."""
    return classified.filter(sf.col("reason").isNotNull()).select("value", "source_file", "reason")


def deduplicate(records: DataFrame, copies_share: tuple[str, ...] = ("recordId",)) -> DataFrame:
    """One row per ``recordId`` (a retried S3 write or a re-run writes a record twice).

    Copies of a record are the same record; which copy is kept is still fixed, so every run
    gives the same rows: the smallest by (timestamp, source_file, then the row's fields in
    order). A ``ts`` column (the parsed timestamp, from ``records_of``) is used as it is, not
    parsed again. ``copies_share``: columns copies have in common, recordId among them, sorted on
    in that order (rows distributed on some need no other shuffle: ``compact``). More than
    recordId relies on copies being one line written twice, which share every field: rows of
    one recordId that differ in a named column are all kept.
    """
    timestamp = sf.col("ts") if "ts" in records.columns else parse_timestamp(sf.col("timestamp"))
    order = [timestamp.asc_nulls_last()]
    if "source_file" in records.columns:
        order.append(sf.col("source_file").asc_nulls_last())
    # The fields themselves, not the row as JSON: as fixed an order, without a to_json per row.
    fields = [name for name in records.columns if name not in ("ts", "source_file")]
    order.extend(sf.col(name).asc_nulls_last() for name in fields)
    copy_number = sf.row_number().over(Window.partitionBy(*copies_share).orderBy(*order))
    return records.withColumn("_copy", copy_number).filter(sf.col("_copy") == 1).drop("_copy")


def with_partitions(records: DataFrame) -> DataFrame:
    """Adds ``ts`` (the parsed timestamp), ``dt`` (yyyy-MM-dd) and ``hour`` (HH) of the record's
    own instant in UTC: a record is filed under the time it happened, not the time its file was
    written (a file written at 00:00:02 can hold records of 23:59:59 the day before). A ``ts``
    column already there (``records_of``' or a compacted file's) is that parse: it is kept."""
    if "ts" not in records.columns:
        records = records.withColumn("ts", parse_timestamp(sf.col("timestamp")))
    micros = sf.unix_micros(sf.col("ts"))
    micros_into_day = sf.pmod(micros, sf.lit(MICROS_PER_DAY))
    # Exact integer arithmetic (whole multiples divided), not a session-time-zone conversion.
    unix_day = ((micros - micros_into_day) / MICROS_PER_DAY).cast("int")
    hour_of_day = ((micros_into_day - sf.pmod(micros, sf.lit(MICROS_PER_HOUR))) / MICROS_PER_HOUR).cast("int")
    return records.withColumns(
        {
            "dt": sf.date_from_unix_date(unix_day).cast("string"),
            "hour": sf.lpad(hour_of_day.cast("string"), 2, "0"),
        }
    )


def compact(
    records: DataFrame, target_files: int, *, dt: str | None = None, hour: str | None = None
) -> DataFrame:
    """Records laid out for writing as Parquet partitioned by ``dt``: de-duplicated, partitioned
    by their own timestamp, and — when ``dt`` (and ``hour``) is given — only those whose own
    timestamp falls in that day (hour).

    Rows are hash-distributed on (dt, tenantId, roomId) into ``target_files`` tasks, so one
    partition is written as at most ``target_files`` files and a room's records share a file;
    each task is sorted by dt then COMPACTED_SORT. Which row lands in which file, and in which
    order, depends only on the rows: a re-run writes the same files' contents. That shuffle and
    sort serve the de-duplication too (on the files' sort order, tenantId last): copies are one
    line written twice, so they share every field, dt included (docs/decisions/0022).
    """
    laid_out = with_partitions(records)
    if dt is not None:
        laid_out = laid_out.filter(sf.col("dt") == dt)
    if hour is not None:
        laid_out = laid_out.filter(sf.col("hour") == hour)
    distributed = laid_out.repartition(target_files, "dt", "tenantId", "roomId")
    deduplicated = deduplicate(distributed, copies_share=("dt", *COMPACTED_SORT, "tenantId"))
    return deduplicated.select(*COMPACTED.fieldNames(), "dt").sortWithinPartitions("dt", *COMPACTED_SORT)


def is_event(name: str) -> Column:
    """A record of the event ``name``, one of schema.EVENTS (a misspelt one fails, not counts zero)."""
    if name not in EVENTS:
        raise ValueError(f"{name!r} is not a delivery-log event (roomcast_glue.schema.EVENTS)")
    return sf.col("event") == name


def _left_join_on_key(left: DataFrame, right: DataFrame, key: tuple[str, ...]) -> DataFrame:
    """``left`` ⟕ ``right`` on ``key`` where null equals null (a room's row without a subscription)."""
    renamed = right.select(
        *[sf.col(name).alias(f"_right_{name}") for name in key],
        *[sf.col(name) for name in right.columns if name not in key],
    )
    condition = [left[name].eqNullSafe(renamed[f"_right_{name}"]) for name in key]
    return left.join(renamed, condition, "left").drop(*[f"_right_{name}" for name in key])


def daily_analytics(records: DataFrame) -> DataFrame:
    """Delivery figures per (dt, tenantId, roomId, subscriptionId); schema DAILY_ANALYTICS.

    Records are de-duplicated on ``recordId`` first, so a record written twice counts once, and
    each is counted on its own ``dt``. "Messages" means distinct ``messageId``s of the row:

    - ``published``: messages with a ``published`` record. A message with no destination has
      one ``published`` record with a null subscriptionId: it counts in the room's row whose
      subscriptionId is null. A failover subscription publishes nothing (it is handed messages).
    - ``delivered``: messages with a ``delivered`` record (a message delivered twice — an SQS
      redelivery — counts once; its first ``delivered`` record, by ts then recordId, is "the"
      delivery for the figures below).
    - ``first_try_success_rate``: messages whose delivery was attempt 0 / ``delivered``; null
      when nothing was delivered.
    - ``retries``: ``retry_scheduled`` records (each scheduled retry, not messages).
    - ``dead``, ``expired``: messages with a ``dead`` / ``expired`` record.
    - ``failovers``: messages handed from this subscription to its failover (``failover``
      records name the subscription that failed).
    - ``latency_p50_ms`` / ``_p95_`` / ``_p99_``: publish → delivered in milliseconds, one value
      per delivered message: the delivery's ts minus its ``publishedAt`` (when that is absent,
      minus the message's earliest ``published`` record in the input). EXACT percentiles
      (Spark's ``percentile``: linear interpolation between the closest ranks, like numpy's
      default); null when no latency is known.
    - ``attempts_histogram``: {attempt that succeeded: delivered messages}, e.g. {0: 95, 1: 4};
      empty when nothing was delivered.
    """
    key = ANALYTICS_KEY
    deduplicated = with_partitions(deduplicate(records))

    def messages_with(name: str) -> Column:
        return sf.count_distinct(sf.when(is_event(name), sf.col("messageId")))

    counts = deduplicated.groupBy(*key).agg(
        messages_with("published").alias("published"),
        sf.count(sf.when(is_event("retry_scheduled"), sf.lit(1))).alias("retries"),
        messages_with("dead").alias("dead"),
        messages_with("expired").alias("expired"),
        messages_with("failover").alias("failovers"),
    )

    first_published = (
        deduplicated.filter(is_event("published"))
        .groupBy("messageId")
        .agg(sf.min("ts").alias("_first_published_ts"))
    )
    delivery_number = sf.row_number().over(
        Window.partitionBy(*key, "messageId").orderBy(sf.col("ts"), sf.col("recordId"))
    )
    published_ts = sf.coalesce(parse_timestamp(sf.col("publishedAt")), sf.col("_first_published_ts"))
    deliveries = (
        deduplicated.filter(is_event("delivered"))
        .withColumn("_delivery", delivery_number)
        .filter(sf.col("_delivery") == 1)
        .join(first_published, "messageId", "left")
        .withColumn("latency_ms", (sf.unix_micros(sf.col("ts")) - sf.unix_micros(published_ts)) / 1000.0)
    )
    percentiles = sf.percentile(sf.col("latency_ms"), list(PERCENTILES))
    delivered = deliveries.groupBy(*key).agg(
        sf.count(sf.lit(1)).alias("delivered"),
        sf.count(sf.when(sf.col("attempt") == 0, sf.lit(1))).alias("_first_try"),
        percentiles.alias("_latency"),
    )
    histogram = (
        deliveries.filter(sf.col("attempt").isNotNull())
        .groupBy(*key, "attempt")
        .agg(sf.count(sf.lit(1)).alias("messages"))
        .groupBy(*key)
        .agg(
            sf.map_from_entries(sf.array_sort(sf.collect_list(sf.struct("attempt", "messages")))).alias(
                "attempts_histogram"
            )
        )
    )

    figures = _left_join_on_key(_left_join_on_key(counts, delivered, key), histogram, key)
    delivered_count = sf.coalesce(sf.col("delivered"), sf.lit(0)).cast("long")
    return figures.select(
        *[sf.col(name) for name in key],
        sf.col("published").cast("long"),
        delivered_count.alias("delivered"),
        sf.when(delivered_count > 0, sf.col("_first_try") / delivered_count).alias("first_try_success_rate"),
        sf.col("retries").cast("long"),
        sf.col("dead").cast("long"),
        sf.col("expired").cast("long"),
        sf.col("failovers").cast("long"),
        *[
            sf.col("_latency")[index].alias(f"latency_p{round(fraction * 100)}_ms")
            for index, fraction in enumerate(PERCENTILES)
        ],
        sf.coalesce(sf.col("attempts_histogram"), sf.create_map().cast("map<int,bigint>")).alias(
            "attempts_histogram"
        ),
    )
