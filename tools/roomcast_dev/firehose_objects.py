"""How Amazon Data Firehose writes to S3 with an ExtendedS3 destination, as the template configures
it (docs.aws.amazon.com/firehose/latest/dev/s3-object-name.html, s3-prefixes.html), for the local
stack's stand-in (``firehose``):

- an object's data is its records concatenated as they are, compressed as ``CompressionFormat``
  says (GZIP or UNCOMPRESSED);
- its key is ``<Prefix, expressions rendered><stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<uuid><FileExtension>``,
  every time being the arrival (UTC) of the oldest record in the object; without a Prefix, Firehose's
  default ``yyyy/MM/dd/HH/``.
"""

from __future__ import annotations

import gzip
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

DEFAULT_PREFIX: Final = "!{timestamp:yyyy/MM/dd/HH}/"
# Firehose's own extension for each compression when the stream sets no FileExtension.
_DEFAULT_EXTENSIONS: Final = {"UNCOMPRESSED": "", "GZIP": ".gz"}
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
