"""A transformation and its versions, and what a run comes to. Pure: no sandbox here.

A subscription keeps its current transformation and the one before it (``previous``): a change
makes the current one the previous, a rollback swaps them back. Versions count up from 1 for each
subscription and are never reused, so an attempt log's version always names one source."""

from __future__ import annotations

from dataclasses import dataclass, field

from roomcast.platform import JsonValue

MAX_SOURCE_BYTES = 64 * 1024  # UTF-8 bytes of a source
TIME_LIMIT_MS = 50  # a run (its source's top level, then handler) is stopped after this long
MEMORY_LIMIT_BYTES = 16 * 1024 * 1024  # an isolate's heap; past it the run is stopped


class TransformationFailed(Exception):
    """A run that threw, ran out of time or memory, or returned what is not a webhook: the
    attempt fails with this reason (retried like any failed attempt)."""


@dataclass(frozen=True)
class Transformation:
    version: int
    source: str
    created_at: str


@dataclass(frozen=True)
class Transformed:
    """What a handler returned: the payload to send in place of the message's, where to and how
    (webhooks), or that this delivery is skipped (``cancel``: recorded ``filtered``)."""

    payload: JsonValue
    cancel: bool = False
    url: str | None = None
    method: str = "POST"
    headers: dict[str, str] = field(default_factory=dict)


def changed_to(
    current: Transformation | None,
    previous: Transformation | None,
    source: str | None,
    now: str,
    versions_given: int,
) -> tuple[Transformation | None, Transformation | None, int]:
    """(current, previous, versions given) after a PATCH: a new source is version ``versions_given + 1`` (the
    subscription counts every version it ever gave, so a number names one source even after the
    kept two moved on) and the current one is kept as previous; ``None`` removes the
    transformation (kept as previous, for a rollback)."""
    latest = max([versions_given, *(t.version for t in (current, previous) if t is not None)])
    if current is not None and current.source == source:
        return current, previous, latest
    kept = current if current is not None else previous
    if source is None:
        return None, kept, latest
    return Transformation(latest + 1, source, now), kept, latest + 1


def rolled_back(
    current: Transformation | None, previous: Transformation | None
) -> tuple[Transformation | None, Transformation | None]:
    """(current, previous) after a rollback: the previous version is current again and the
    replaced one is kept as previous (a second rollback undoes the first)."""
    return previous, current
