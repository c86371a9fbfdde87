"""Amazon Data Firehose's delivery to S3, for moto: the local stack stands in for it as it stands
in for Lambda's event source mappings.

moto 5.2.5 takes the functions' PutRecordBatch calls as AWS does, but writes one S3 object per
call, leaves ``!{timestamp:…}`` prefix expressions literal, appends its own ``YYYY/MM/DD/HH/``, and
neither compresses nor adds a file extension. Here its ``put_s3_records`` is replaced, in the
process that runs moto, by what Firehose does with an ExtendedS3 destination as the template
configures it (docs.aws.amazon.com/firehose/latest/dev/s3-object-name.html, s3-prefixes.html):

- records are buffered per stream and delivered when the buffer reaches ``SizeInMBs`` (before
  compression) or its oldest record is ``IntervalInSeconds`` old; the local stack may use a
  shorter interval (``ROOMCAST_FIREHOSE_INTERVAL_SECONDS``), and ``flush()`` delivers everything
  buffered (the local stack does on stop; tests do before reading the bucket);
- an object's data is its records concatenated as they are, compressed as ``CompressionFormat``
  says (GZIP or UNCOMPRESSED);
- its key is ``<Prefix, expressions rendered><stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<uuid><FileExtension>``,
  every time being the arrival (UTC) of the oldest record in the object; without a Prefix, Firehose's
  default ``yyyy/MM/dd/HH/``.

The buffers live on moto's Firehose backends, so moto's reset discards them with the streams.
Delivery errors (a missing bucket) keep the records buffered for the next attempt, as Firehose
retries; what the local stack does not do: error output, record processing, format conversion,
dynamic partitioning, time zones other than UTC.
"""

from __future__ import annotations

import gzip
import logging
import re
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from roomcast.domain.clock import utc_now

_log = logging.getLogger(__name__)

INTERVAL_ENVIRONMENT_VARIABLE: Final = "ROOMCAST_FIREHOSE_INTERVAL_SECONDS"
# `make run` and the e2e tests: records reach the bucket within seconds, not Firehose's minutes.
LOCAL_INTERVAL_SECONDS: Final = 10.0
DEFAULT_PREFIX: Final = "!{timestamp:yyyy/MM/dd/HH}/"
# Firehose's own extension for each compression when the stream sets no FileExtension.
_DEFAULT_EXTENSIONS: Final = {"UNCOMPRESSED": "", "GZIP": ".gz"}
# PutRecordBatch limits (moto does not enforce them; a writer that breaks one fails locally too).
MAX_RECORDS_PER_CALL: Final = 500
MAX_BYTES_PER_CALL: Final = 4 * 1024 * 1024
MAX_RECORD_BYTES: Final = 1_000 * 1024
_EXPRESSION = re.compile(r"!\{([A-Za-z]+):([^}]*)\}")
# Java DateTimeFormatter letters the local stack renders, by (letter, count).
_JAVA_FIELDS: Final = {
    ("y", 4): "%Y",
    ("y", 2): "%y",
    ("M", 2): "%m",
    ("d", 2): "%d",
    ("H", 2): "%H",
    ("m", 2): "%M",
    ("s", 2): "%S",
}


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


def java_timestamp(pattern: str, moment: datetime) -> str:
    """``moment`` formatted as Java's DateTimeFormatter formats ``pattern`` (the fields Firehose
    prefixes use: yyyy, yy, MM, dd, HH, mm, ss, and 'quoted' text)."""
    rendered: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "'":
            end = pattern.find("'", index + 1)
            if end < 0:
                raise ValueError(f"unterminated quote in {pattern!r}")
            rendered.append(pattern[index + 1 : end] if end > index + 1 else "'")
            index = end + 1
        elif char.isalpha():
            run = len(pattern) - index - len(pattern[index:].lstrip(char))
            directive = _JAVA_FIELDS.get((char, run))
            if directive is None:
                raise ValueError(f"{char * run} in {pattern!r}: not rendered by the local stack")
            rendered.append(moment.strftime(directive))
            index += run
        else:
            rendered.append(char)
            index += 1
    return "".join(rendered)


def render_prefix(prefix: str, arrival: datetime) -> str:
    """A Prefix with its ``!{timestamp:…}`` and ``!{firehose:random-string}`` expressions evaluated."""
    moment = arrival.astimezone(UTC)

    def evaluate(match: re.Match[str]) -> str:
        namespace, value = match.group(1), match.group(2)
        if namespace == "timestamp":
            return java_timestamp(value, moment)
        if (namespace, value) == ("firehose", "random-string"):
            return uuid.uuid4().hex[:11]
        raise ValueError(f"!{{{namespace}:{value}}}: not rendered by the local stack")

    return _EXPRESSION.sub(evaluate, prefix)


def object_key(
    destination: Mapping[str, Any],
    stream_name: str,
    version: str,
    arrival: datetime,
    object_id: str | None = None,
) -> str:
    """The key Firehose gives an object whose oldest record arrived at ``arrival`` (``object_id``:
    Firehose's random uuid, unless a test names its own)."""
    moment = arrival.astimezone(UTC)
    prefix = render_prefix(destination.get("Prefix") or DEFAULT_PREFIX, moment)
    compression = destination.get("CompressionFormat", "UNCOMPRESSED")
    extension = destination.get("FileExtension") or _DEFAULT_EXTENSIONS[compression]
    return (
        f"{prefix}{stream_name}-{version}-{moment:%Y-%m-%d-%H-%M-%S}-{object_id or uuid.uuid4()}{extension}"
    )


def object_body(destination: Mapping[str, Any], records: list[bytes]) -> bytes:
    """The records concatenated as they are (Firehose adds no delimiter), compressed as configured."""
    data = b"".join(records)
    compression = destination.get("CompressionFormat", "UNCOMPRESSED")
    if compression == "GZIP":
        return gzip.compress(data)
    if compression == "UNCOMPRESSED":
        return data
    raise ValueError(f"CompressionFormat {compression}: not delivered by the local stack")


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


def delivery_stream_request(spec: Mapping[str, Any]) -> dict[str, Any]:
    """CreateDeliveryStream's arguments for a template stream (properties resolved)."""
    destination = spec["ExtendedS3DestinationConfiguration"]
    request: dict[str, Any] = {
        "DeliveryStreamName": spec["DeliveryStreamName"],
        "DeliveryStreamType": spec.get("DeliveryStreamType", "DirectPut"),
        "ExtendedS3DestinationConfiguration": destination,
    }
    if "DeliveryStreamEncryptionConfigurationInput" in spec:
        request["DeliveryStreamEncryptionConfigurationInput"] = spec[
            "DeliveryStreamEncryptionConfigurationInput"
        ]
    return request
