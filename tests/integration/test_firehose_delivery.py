"""The local stack's stand-in for Firehose's delivery to S3, on moto: the stream the template
configures, the keys AWS would write, buffering by size and interval, and Firehose's call limits."""

from __future__ import annotations

import gzip
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.request import Request, urlopen

import boto3
import pytest
from botocore.exceptions import ClientError

from roomcast.log.delivery_log import gzip_member
from roomcast_dev.firehose import FirehoseDelivery, install_firehose_delivery
from roomcast_dev.template import StackModel

ARRIVAL = datetime(2026, 11, 22, 23, 59, 58, 500_000, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime = ARRIVAL

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Delivery:
    firehose: FirehoseDelivery
    clock: Clock
    stream: str
    bucket: str

    def put(self, *records: bytes, stream: str | None = None) -> None:
        boto3.client("firehose").put_record_batch(
            DeliveryStreamName=stream or self.stream, Records=[{"Data": data} for data in records]
        )

    def objects(self) -> dict[str, bytes]:
        s3 = boto3.client("s3")
        listed = s3.list_objects_v2(Bucket=self.bucket).get("Contents", [])
        return {
            item["Key"]: s3.get_object(Bucket=self.bucket, Key=item["Key"])["Body"].read() for item in listed
        }


@pytest.fixture
def delivery(
    stack_model: StackModel,
    moto_endpoint: str,
    firehose_delivery: FirehoseDelivery,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Delivery]:
    """A delivery on a clock the test moves, with the template's own buffering interval."""
    from roomcast_dev.local_aws import aws_environment

    for name, value in aws_environment(moto_endpoint).items():
        monkeypatch.setenv(name, value)
    clock = Clock()
    stand_in = install_firehose_delivery(FirehoseDelivery(interval_seconds=None, clock=clock))
    try:
        yield Delivery(
            stand_in,
            clock,
            stack_model.delivery_streams["DeliveryLogStream"]["DeliveryStreamName"],
            stack_model.buckets["LogBucket"]["BucketName"],
        )
    finally:
        install_firehose_delivery(firehose_delivery)


def test_the_stream_is_created_as_the_template_configures_it(
    stack_model: StackModel, delivery: Delivery
) -> None:
    # When
    described = boto3.client("firehose").describe_delivery_stream(DeliveryStreamName=delivery.stream)
    destination = described["DeliveryStreamDescription"]["Destinations"][0][
        "ExtendedS3DestinationDescription"
    ]

    # Then
    assert destination["BucketARN"] == f"arn:aws:s3:::{delivery.bucket}"
    assert destination["Prefix"] == "raw/dt=!{timestamp:yyyy-MM-dd}/hour=!{timestamp:HH}/"
    assert destination["CompressionFormat"] == "UNCOMPRESSED"  # the functions send gzip members
    assert destination["BufferingHints"] == {"SizeInMBs": 128, "IntervalInSeconds": 900}
    assert stack_model.functions["PushFunction"].environment["DELIVERY_STREAM"] == delivery.stream


def test_a_file_has_the_key_aws_would_write_and_its_records_gzip_members_make_one_gzip_file(
    delivery: Delivery,
) -> None:
    # Given: two batches of records compressed as the functions send them, the first arriving at
    # 23:59:58.5 UTC, the second after midnight
    delivery.put(gzip_member(b'{"n":1}\n{"n":2}\n'), gzip_member(b'{"n":3}\n'))
    delivery.clock.now = ARRIVAL + timedelta(seconds=5)
    delivery.put(gzip_member(b'{"n":4}\n'))

    # When: Firehose delivers
    keys = delivery.firehose.flush()

    # Then: one object under the oldest record's hour, named <stream>-<version>-<time>-<uuid><extension>
    objects = delivery.objects()
    assert list(objects) == keys
    (key,) = keys
    uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    expected = f"raw/dt=2026-11-22/hour=23/{delivery.stream}-1-2026-11-22-23-59-58-{uuid}.ndjson.gz"
    assert re.fullmatch(expected, key), key
    assert gzip.decompress(objects[key]) == b'{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n'


def test_nothing_is_delivered_before_the_templates_interval_and_all_of_it_then(delivery: Delivery) -> None:
    # Given
    delivery.put(gzip_member(b"a\n"))
    delivery.clock.now = ARRIVAL + timedelta(seconds=899)
    delivery.put(gzip_member(b"b\n"))

    # When / Then: IntervalInSeconds is 900 in the template
    assert delivery.firehose.deliver_due() == []
    delivery.clock.now = ARRIVAL + timedelta(seconds=900)
    (key,) = delivery.firehose.deliver_due()
    assert gzip.decompress(delivery.objects()[key]) == b"a\nb\n"


def test_a_buffer_that_reaches_its_size_hint_is_delivered_at_once(delivery: Delivery) -> None:
    # Given: a stream that buffers 1 MB (the template's 128 MB is too big for a fast test)
    small = "roomcast-test-small-buffer"
    boto3.client("firehose").create_delivery_stream(
        DeliveryStreamName=small,
        ExtendedS3DestinationConfiguration={
            "RoleARN": "arn:aws:iam::123456789012:role/firehose",
            "BucketARN": f"arn:aws:s3:::{delivery.bucket}",
            "Prefix": "small/",
            "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 900},
        },
    )
    record = b"x" * 600_000

    # When
    delivery.put(record, stream=small)
    before = delivery.firehose.deliver_due()
    delivery.put(record, stream=small)
    after = delivery.firehose.deliver_due()

    # Then: delivered once 1 MiB was buffered, uncompressed, with Firehose's default name and no extension
    assert before == []
    (key,) = after
    assert re.fullmatch(rf"small/{small}-1-2026-11-22-23-59-58-[-0-9a-f]{{36}}", key)
    assert delivery.objects()[key] == record * 2


def test_batches_beyond_firehoses_limits_are_refused(delivery: Delivery) -> None:
    # When / Then
    with pytest.raises(ClientError, match="InvalidArgument"):
        delivery.put(*[b"x\n"] * 501)
    with pytest.raises(ClientError, match="InvalidArgument"):
        delivery.put(b"x" * (1_000 * 1024 + 1))
    assert delivery.firehose.flush() == []


def test_an_emptied_emulator_forgets_what_was_buffered(delivery: Delivery, moto_endpoint: str) -> None:
    # Given
    delivery.put(b"a\n")

    # When
    with urlopen(Request(f"{moto_endpoint}/moto-api/reset", method="POST"), timeout=30):  # noqa: S310
        pass

    # Then
    assert delivery.firehose.flush() == []


def test_in_the_background_a_buffer_is_delivered_once_its_interval_passed(delivery: Delivery) -> None:
    # Given: the real clock and a short local interval, as the local stack runs it
    background = install_firehose_delivery(FirehoseDelivery(interval_seconds=0.2))
    background.start()
    try:
        # When
        delivery.put(gzip_member(b"a\n"))

        # Then
        deadline = time.monotonic() + 10
        found: dict[str, Any] = {}
        while not found and time.monotonic() < deadline:
            found = delivery.objects()
            time.sleep(0.05)
        assert [gzip.decompress(body) for body in found.values()] == [b"a\n"]
    finally:
        background.stop()


def test_another_stand_in_in_the_process_never_delivers_what_this_one_buffered(delivery: Delivery) -> None:
    # Given: this delivery buffered a record at 23:59:58.5; another stand-in (a local stack left
    # running in the same process, on the real clock, with a 10 s interval) looks at the emulator
    delivery.put(gzip_member(b"a\n"))
    other = FirehoseDelivery(interval_seconds=10)

    # When: the other one delivers what is due on its clock, and flushes
    due = other.deliver_due()
    flushed = other.flush()

    # Then: nothing of this delivery's was written; this one still delivers it whole
    assert (due, flushed) == ([], [])
    assert delivery.objects() == {}
    (key,) = delivery.firehose.flush()
    assert gzip.decompress(delivery.objects()[key]) == b"a\n"
