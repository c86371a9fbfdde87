"""How big a compaction run's work is, from what its input files hold (docs/decisions/0022).

Spark sizes a read by the files' *compressed* bytes, and a gzip file of log lines holds several
times its size in text: read tasks, shuffle partitions and output files are sized here by the
text the files are expected to hold instead. Only the input's size goes in (not the cluster's), so
a re-run on the same files lays out the same output files, on any number of workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

MIB: Final = 1024 * 1024
# Text bytes per gzip byte of delivery-log NDJSON: 7.7 measured on the bench's lines (each
# record carries two random 128-bit ids); lines with more repetition hold more (the issue saw >10).
TEXT_BYTES_PER_GZIP_BYTE: Final = 8
# Text one read task parses: small enough that many tasks keep every core busy to the end,
# large enough that a task's start (~50 ms) is a small part of it.
READ_TASK_TEXT_BYTES: Final = 128 * MIB
# Text of the records one shuffle partition sorts, for a shuffle that has no task count of its
# own (the compaction's one shuffle has ``output_files`` tasks): Spark's sort spills past its
# memory share, so this sets the work per task, not whether it fits.
SHUFFLE_PARTITION_TEXT_BYTES: Final = 128 * MIB
# Text of the records one compacted Parquet file holds: ~1 GiB of lines gives a file of ~170 MB
# (snappy Parquet is ~1/6 of the text), in the 128 MB-1 GB range readers like (Athena, Spark).
OUTPUT_FILE_TEXT_BYTES: Final = 1024 * MIB
# Spark's cost of opening a file, in bytes (spark.sql.files.openCostInBytes' default).
OPEN_COST_BYTES: Final = 4 * MIB


@dataclass(frozen=True)
class WorkSize:
    """A run's settings, all derived from its input's compressed bytes."""

    text_bytes: int  # the text the input is expected to hold
    read_partition_bytes: int  # spark.sql.files.maxPartitionBytes: compressed bytes per read task
    shuffle_partitions: int  # spark.sql.shuffle.partitions (no compaction shuffle uses it now)
    output_files: int  # Parquet files per written partition (the layout's tasks)


def work_size(input_bytes: int, own_bytes: int, output_files: int | None = None) -> WorkSize:
    """The settings for a run over ``input_bytes`` of gzip NDJSON, ``own_bytes`` of them in the
    day's (hour's) own files, whose records are written (the neighbour hours' are read for the
    few near midnight); ``output_files`` overrides the number of Parquet files
    (``--files_per_partition``)."""
    if own_bytes < 0 or own_bytes > input_bytes:
        raise ValueError(f"need 0 <= own_bytes <= input_bytes, got {own_bytes} and {input_bytes}")
    if output_files is not None and output_files < 1:
        raise ValueError(f"output_files must be >= 1, got {output_files}")
    text_bytes = input_bytes * TEXT_BYTES_PER_GZIP_BYTE
    return WorkSize(
        text_bytes=text_bytes,
        # At least Spark's open cost: a file is one unit (gzip does not split), and a partition
        # below the open cost would hold a single small file.
        read_partition_bytes=max(OPEN_COST_BYTES, READ_TASK_TEXT_BYTES // TEXT_BYTES_PER_GZIP_BYTE),
        shuffle_partitions=max(1, math.ceil(text_bytes / SHUFFLE_PARTITION_TEXT_BYTES)),
        output_files=output_files
        or max(1, math.ceil(own_bytes * TEXT_BYTES_PER_GZIP_BYTE / OUTPUT_FILE_TEXT_BYTES)),
    )
