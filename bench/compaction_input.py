"""The input of bench/compaction.py: a day of delivery-log lines in the files Firehose writes.

Firehose (template.yaml, DeliveryLogStream) flushes every 900 s or 128 MB, so a day is 96 files,
``raw/dt=D/hour=H/<stream>-1-<yyyy-MM-dd-HH-mm-ss>-<uuid>.ndjson.gz``, each the concatenation of
the records the functions sent: one gzip member per invocation's lines (roomcast.log.delivery_log).
The lines have the shape roomcast.log.records.LogRecord.to_json writes (its own output,
turned into a template once, so 16 M lines take a minute, not ten); 1 % of them are a copy of an
earlier line (a retried write), 0.1 % are cut short (malformed), and the last file's records run a
few seconds past midnight (the next day's, which the job leaves to that day's run).

A generated day is kept under .local/bench/compaction-input/ and reused by later runs.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from roomcast.catalog.model import SubscriptionType
from roomcast.log.delivery_log import gzip_member
from roomcast.log.records import LogEvent, LogRecord
from roomcast_dev.firehose_objects import object_body, object_key
from roomcast_dev.template import load_template

DAY: Final = "2026-11-21"
FILES_A_DAY: Final = 96  # Firehose's 900-second buffer
FILE_SECONDS: Final = 86_400 // FILES_A_DAY
LINES_PER_MEMBER: Final = 50  # one invocation's lines: one Firehose record, one gzip member
DUPLICATE_RATE: Final = 0.01
MALFORMED_RATE: Final = 0.001
MALFORMED_LINE: Final = '{"schemaVersion":1,"recordId":"broken"'
GENERATOR_VERSION: Final = 1  # bump when the lines change: a kept day is then made again
CACHE: Final = Path(__file__).resolve().parents[1] / ".local" / "bench" / "compaction-input"
# The generated records' events, drawn at random from this mix (attempts and deliveries most).
EVENT_MIX: Final = ("published", "attempt", "delivered", "attempt", "retry_scheduled", "attempt", "delivered")
_ROOMS: Final = tuple(f"room_{n:032x}" for n in range(20))
_SUBSCRIPTIONS: Final = tuple(f"sub_{n:032x}" for n in range(200))
# Stand-ins the writer's JSON carries where each line has its own value (replaced by fields).
_PLACES: Final = {
    "@@record@@": "record_id",
    "@@time@@": "timestamp",
    "@@message@@": "message",
    "@@room@@": "room",
    "@@subscription@@": "subscription",
    "@@published@@": "published_at",
    "987650001": "attempt",
    "987650002": "latency_ms",
}


def _template(event: str) -> str:
    """The line the functions write for ``event``, as a str.format template of its varying fields."""
    details: dict[str, int | str | None] = {"published_at": "@@published@@"}
    if event != "published":
        details |= {"attempt": 987650001, "http_status": 200, "latency_ms": 987650002}
    if event == "retry_scheduled":
        details |= {"http_status": 503, "error": "HTTP 503", "next_delay_ms": 1000}
    line = LogRecord(
        event=LogEvent(event),
        message_id="@@message@@",
        correlation_id="corr-bench",
        tenant_id="bench",
        room_id="@@room@@",
        subscription_id="@@subscription@@",
        subscription_type=SubscriptionType.PUSH,
        timestamp="@@time@@",
        record_id="@@record@@",
        **details,  # type: ignore[arg-type]
    ).to_json()
    line = line.replace("{", "{{").replace("}", "}}")
    for stand_in, name in _PLACES.items():
        line = line.replace(stand_in, "{" + name + "}")
    json.loads(line.format(**{name: "1" for name in _PLACES.values()}))  # still JSON once filled
    return line


def _file_lines(seed: int, index: int, lines: int) -> list[str]:
    """File ``index``'s lines: records of its 900 seconds (the last file's run past midnight)."""
    chance = random.Random(seed * 1_000_003 + index)
    templates = [_template(event) for event in EVENT_MIX]
    start_s = int(datetime.fromisoformat(f"{DAY}T00:00:00+00:00").timestamp()) + index * FILE_SECONDS
    seconds: dict[int, str] = {}
    written: list[str] = []
    message = room = subscription = ""
    for number in range(lines):
        if written and chance.random() < DUPLICATE_RATE:
            written.append(written[chance.randrange(max(0, len(written) - 50), len(written))])
            continue
        if chance.random() < MALFORMED_RATE:
            written.append(MALFORMED_LINE)
            continue
        if number % 3 == 0:  # a message's records come together: its publish, attempts, delivery
            message = f"msg_{chance.getrandbits(128):032x}"
            room, subscription = chance.choice(_ROOMS), chance.choice(_SUBSCRIPTIONS)
        at_ms = start_s * 1000 + chance.randrange(0, (FILE_SECONDS + 17) * 1000)
        second = at_ms // 1000
        if second not in seconds:
            seconds[second] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        stamp = f"{seconds[second]}.{at_ms % 1000:03d}Z"
        written.append(
            chance.choice(templates).format(
                record_id=f"{chance.getrandbits(128):032x}",
                timestamp=stamp,
                message=message,
                room=room,
                subscription=subscription,
                published_at=stamp,
                attempt=chance.randrange(0, 4),
                latency_ms=chance.randrange(5, 500),
            )
        )
    return written


def _write_file(destination: dict[str, Any], root: Path, seed: int, index: int, lines: int) -> int:
    """One Firehose object: its lines as gzip members of LINES_PER_MEMBER lines, concatenated."""
    content = _file_lines(seed, index, lines)
    members = [
        gzip_member(("\n".join(content[at : at + LINES_PER_MEMBER]) + "\n").encode())
        for at in range(0, len(content), LINES_PER_MEMBER)
    ]
    flushed = datetime.fromisoformat(f"{DAY}T00:00:00+00:00") + timedelta(seconds=index * FILE_SECONDS)
    key = object_key(destination, "roomcast-DeliveryLogStream", "1", flushed, f"bench-{seed}-{index:02d}")
    path = root / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(object_body(destination, members))
    return len(content)


def day_of_lines(lines_total: int, seed: int = 7, cache: Path = CACHE) -> Path:
    """A directory holding ``raw/dt=DAY/…``: ``lines_total`` lines in FILES_A_DAY files (made once,
    on every core, then reused)."""
    root = cache / f"v{GENERATOR_VERSION}-seed{seed}-{lines_total}"
    if (root / "complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    building = root.with_name(root.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    per_file = [
        lines_total // FILES_A_DAY + (index < lines_total % FILES_A_DAY) for index in range(FILES_A_DAY)
    ]
    destination = load_template()["Resources"]["DeliveryLogStream"]["Properties"][
        "ExtendedS3DestinationConfiguration"
    ]
    jobs = [(destination, building, seed, index, lines) for index, lines in enumerate(per_file)]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        counts = list(pool.map(_write_file, *zip(*jobs, strict=True)))
    assert sum(counts) == lines_total, (sum(counts), lines_total)
    (building / "complete").write_text(f"{lines_total}\n")
    building.rename(root)
    return root
