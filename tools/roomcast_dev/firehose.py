"""Amazon Data Firehose's delivery to S3, for moto: the local stack stands in for it as it stands
in for Lambda's event source mappings.

moto 5.2.5 takes the functions' PutRecordBatch calls as AWS does, but writes one S3 object per
call, leaves ``!{timestamp:…}`` prefix expressions literal, appends its own ``YYYY/MM/DD/HH/``, and
neither compresses nor adds a file extension. Here its ``put_s3_records`` is replaced, in the
process that runs moto, by what Firehose does with an ExtendedS3 destination as the template
configures it:

- records are buffered per stream and delivered when the buffer reaches ``SizeInMBs`` (before
  compression) or its oldest record is ``IntervalInSeconds`` old; the local stack may use a
  shorter interval (``ROOMCAST_FIREHOSE_INTERVAL_SECONDS``), and ``flush()`` delivers everything
  buffered (the local stack does on stop; tests do before reading the bucket);
- each delivery is one S3 object, named and compressed as ``firehose_objects`` says.

The buffers live on moto's Firehose backends, so moto's reset discards them with the streams.
Delivery errors (a missing bucket) keep the records buffered for the next attempt, as Firehose
retries; what the local stack does not do: error output, record processing, format conversion,
dynamic partitioning, time zones other than UTC.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from roomcast.platform.clock import utc_now
from roomcast_dev.firehose_objects import object_body, object_key

_log = logging.getLogger(__name__)

INTERVAL_ENVIRONMENT_VARIABLE: Final = "ROOMCAST_FIREHOSE_INTERVAL_SECONDS"
# `make run` and the e2e tests: records reach the bucket within seconds, not Firehose's minutes.
LOCAL_INTERVAL_SECONDS: Final = 10.0
# PutRecordBatch limits (moto does not enforce them; a writer that breaks one fails locally too).
MAX_RECORDS_PER_CALL: Final = 500
MAX_BYTES_PER_CALL: Final = 4 * 1024 * 1024
MAX_RECORD_BYTES: Final = 1_000 * 1024


def interval_from_environment(environ: Mapping[str, str]) -> float | None:
    """The local buffering interval: ``ROOMCAST_FIREHOSE_INTERVAL_SECONDS`` seconds, ``template``
    for each stream's own IntervalInSeconds; unset, LOCAL_INTERVAL_SECONDS."""
    value = environ.get(INTERVAL_ENVIRONMENT_VARIABLE, "").strip()
    if not value:
        return LOCAL_INTERVAL_SECONDS
    if value == "template":
        return None
    seconds = float(value)
    if seconds <= 0:
        raise ValueError(f"{INTERVAL_ENVIRONMENT_VARIABLE} must be a positive number or 'template'")
    return seconds


@dataclass
class _Buffer:
    destination: dict[str, Any]
    version: str
    oldest_arrival: datetime
    records: list[bytes] = field(default_factory=list)
    size_bytes: int = 0


class FirehoseDelivery:
    """Buffers what moto's Firehose streams are given and delivers it as Firehose would.

    ``interval_seconds`` replaces every stream's IntervalInSeconds (None: the stream's own).
    ``start()`` delivers in the background as buffers fill or age; ``flush()`` delivers all now.
    """

    def __init__(
        self, interval_seconds: float | None = None, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.interval_seconds = interval_seconds
        self._clock = clock
        self._wake = threading.Condition(_lock)
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.batches_received = 0  # PutRecordBatch (and PutRecord) calls taken

    # -- what moto's put_s3_records does instead ---------------------------------------------------

    def accept(
        self, backend: Any, stream_name: str, version: str, destination: dict[str, Any], records: list[Any]
    ) -> None:
        """Buffer a PutRecordBatch's records (moto has found the stream)."""
        data = [bytes(record["Data"]) for record in records]
        _check_limits(data)
        with _lock:
            buffers = self._buffers(backend)
            buffer = buffers.get(stream_name)
            if buffer is None:
                buffer = buffers[stream_name] = _Buffer(destination, version, self._clock())
            buffer.records += data
            buffer.size_bytes += sum(len(item) for item in data)
            self.batches_received += 1
            self._wake.notify_all()

    def _buffers(self, backend: Any) -> dict[str, _Buffer]:
        """This delivery's buffers in a Firehose backend, by stream. They live on the backend, so
        that moto's reset drops them with the streams; they are keyed by delivery, so that another
        stand-in in the process (a local stack's, on its own clock) never delivers records this
        one was given."""
        owners: dict[FirehoseDelivery, dict[str, _Buffer]] = backend.__dict__.setdefault(
            "_roomcast_buffers", {}
        )
        return owners.setdefault(self, {})

    # -- delivery --------------------------------------------------------------------------------

    def flush(self) -> list[str]:
        """Deliver every buffer now, whatever its size and age; the keys written."""
        return self._deliver(lambda buffer, now: True)

    def deliver_due(self) -> list[str]:
        """Deliver the buffers that reached their size or interval; the keys written."""
        return self._deliver(self._is_due)

    def _is_due(self, buffer: _Buffer, now: datetime) -> bool:
        hints = buffer.destination.get("BufferingHints", {})
        size_bytes = int(hints.get("SizeInMBs", 5)) * 1024 * 1024
        return buffer.size_bytes >= size_bytes or (
            now - buffer.oldest_arrival
        ).total_seconds() >= self._interval(buffer)

    def _interval(self, buffer: _Buffer) -> float:
        if self.interval_seconds is not None:
            return self.interval_seconds
        return float(buffer.destination.get("BufferingHints", {}).get("IntervalInSeconds", 300))

    def _deliver(self, due: Callable[[_Buffer, datetime], bool]) -> list[str]:
        from moto.s3.models import s3_backends

        keys: list[str] = []
        with _lock:
            now = self._clock()
            for backend in _firehose_backends():
                buffers = self._buffers(backend)
                for stream_name, buffer in list(buffers.items()):
                    if not due(buffer, now):
                        continue
                    key = object_key(buffer.destination, stream_name, buffer.version, buffer.oldest_arrival)
                    bucket = str(buffer.destination["BucketARN"]).split(":")[-1]
                    try:
                        s3 = s3_backends[backend.account_id][backend.partition]
                        s3.put_object(bucket, key, object_body(buffer.destination, buffer.records))
                    except Exception:  # Firehose keeps the records and retries; so does this
                        _log.warning(
                            "firehose %s: delivery to s3://%s failed", stream_name, bucket, exc_info=True
                        )
                        continue
                    del buffers[stream_name]
                    keys.append(key)
        return keys

    # -- background delivery ---------------------------------------------------------------------

    def start(self) -> None:
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="firehose-delivery", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop delivering in the background, then deliver what is buffered (a stack that stops
        loses nothing it was given)."""
        with _lock:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.flush()

    def _run(self) -> None:
        while True:
            with _lock:
                if self._stopping:
                    return
                self._wake.wait(timeout=self._poll_seconds())
                if self._stopping:
                    return
            self.deliver_due()

    def _poll_seconds(self) -> float:
        interval = self.interval_seconds if self.interval_seconds is not None else 60.0
        return max(0.05, min(1.0, interval / 10))


def _check_limits(data: list[bytes]) -> None:
    from moto.firehose.exceptions import InvalidArgumentException

    if len(data) > MAX_RECORDS_PER_CALL or sum(len(item) for item in data) > MAX_BYTES_PER_CALL:
        raise InvalidArgumentException("PutRecordBatch takes at most 500 records and 4 MiB per call")
    if any(len(item) > MAX_RECORD_BYTES for item in data):
        raise InvalidArgumentException("a Firehose record is at most 1,000 KiB")


def _firehose_backends() -> list[Any]:
    from moto.firehose.models import firehose_backends

    return [backend for regions in list(firehose_backends.values()) for backend in list(regions.values())]


_lock = threading.RLock()
_installed: dict[str, FirehoseDelivery] = {}


def install_firehose_delivery(delivery: FirehoseDelivery) -> FirehoseDelivery:
    """Make moto's Firehose in this process hand its S3 deliveries to ``delivery`` (the last one
    installed wins: one local stack or test session per process)."""
    from moto.firehose.models import FirehoseBackend

    with _lock:
        if not _installed:

            def put_s3_records(
                backend: FirehoseBackend,
                delivery_stream_name: str,
                version_id: str,
                s3_destination: dict[str, Any],
                records: list[dict[str, bytes]],
            ) -> list[dict[str, str]]:
                _installed["active"].accept(
                    backend, delivery_stream_name, version_id, s3_destination, records
                )
                return [{"RecordId": str(uuid.uuid4())} for _ in records]

            FirehoseBackend.put_s3_records = put_s3_records  # type: ignore[method-assign,assignment]
        _installed["active"] = delivery
    return delivery
