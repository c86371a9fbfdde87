"""roomcast_glue.sizing: a compaction run's read tasks, shuffle partitions and output files follow
what its gzip files hold, not their compressed size and not the cluster."""

from __future__ import annotations

import pytest

from roomcast_glue.sizing import (
    MIB,
    OUTPUT_FILE_TEXT_BYTES,
    SHUFFLE_PARTITION_TEXT_BYTES,
    TEXT_BYTES_PER_GZIP_BYTE,
    work_size,
)

SPARK_DEFAULT_PARTITION_BYTES = 128 * MIB
GZIP_BYTES_PER_FILE_TEXT = OUTPUT_FILE_TEXT_BYTES // TEXT_BYTES_PER_GZIP_BYTE


def test_a_read_task_holds_a_bounded_amount_of_text_whatever_the_days_size() -> None:
    # Given a small day and a day of ~1.5 TB of text
    small, large = work_size(50 * MIB, 50 * MIB), work_size(190_000_000_000, 190_000_000_000)

    # Then both read the same compressed bytes per task: a fraction of Spark's 128 MB default,
    # which in gzip holds several times that in text
    assert small.read_partition_bytes == large.read_partition_bytes
    assert small.read_partition_bytes * TEXT_BYTES_PER_GZIP_BYTE <= SPARK_DEFAULT_PARTITION_BYTES


def test_shuffle_partitions_grow_with_the_text_read() -> None:
    # Given input of 1, 4 and 16 times a partition's worth of text
    per_partition = SHUFFLE_PARTITION_TEXT_BYTES // TEXT_BYTES_PER_GZIP_BYTE

    # Then the de-duplication gets that many partitions (at least one)
    assert [work_size(n * per_partition, 0).shuffle_partitions for n in (1, 4, 16)] == [1, 4, 16]
    assert work_size(0, 0).shuffle_partitions == 1


def test_output_files_follow_the_own_files_text_and_not_the_neighbour_hours() -> None:
    # Given runs whose own files hold just under, and just over, one output file's text
    just_under, just_over = GZIP_BYTES_PER_FILE_TEXT, GZIP_BYTES_PER_FILE_TEXT + 1

    # Then they write one and two files; neighbour hours read beside them add none
    assert work_size(just_under, just_under).output_files == 1
    assert work_size(just_over, just_over).output_files == 2
    assert work_size(10 * just_over, just_under).output_files == 1
    assert work_size(0, 0).output_files == 1


def test_a_day_of_a_few_billion_lines_is_written_as_about_a_thousand_files() -> None:
    # Given ~1.5 TB of text a day, in gzip
    gzip_bytes = 1_500_000_000_000 // TEXT_BYTES_PER_GZIP_BYTE

    # When it is sized
    size = work_size(gzip_bytes, gzip_bytes)

    # Then each file holds about a GiB of text, and the shuffle has partitions for every core
    assert 1_300 <= size.output_files <= 1_500
    assert size.shuffle_partitions >= 10_000


def test_files_per_partition_overrides_the_output_files() -> None:
    assert work_size(100 * GZIP_BYTES_PER_FILE_TEXT, 100 * GZIP_BYTES_PER_FILE_TEXT, 3).output_files == 3


@pytest.mark.parametrize(("input_bytes", "own_bytes", "files"), [(-1, 0, None), (1, 2, None), (1, 1, 0)])
def test_impossible_sizes_are_refused(input_bytes: int, own_bytes: int, files: int | None) -> None:
    with pytest.raises(ValueError, match=r"must be|need"):
        work_size(input_bytes, own_bytes, files)
