"""The metrics in the table: a scope's time buckets and its open deliveries (roomcast.metrics.tally),
written exactly once per stream record and read back as series.

| entity           | PK                                      | SK                          |
| ---------------- | --------------------------------------- | --------------------------- |
| metrics bucket   | ``TENANT#<t>#METRICS#<scope>``          | ``1m#<start>``, ``1h#<start>`` |
| open deliveries  | ``TENANT#<t>#METRICS#<scope>#OPEN``     | ``<hour first due>``        |

**Exactly once.** A flush adds a tally of stream records ``lo`` .. ``hi`` of one shard. Every
item it writes keeps, per shard, the last record it added (``g#<shardId>``), and each update is
conditional on that being before ``lo``: a flush retried after a crash (or a retried window) skips
the items it already wrote and writes the others. A shard's records come in order, and a window's
records are tallied once, so an item never holds part of a tally.

Buckets expire (TTL) when their resolution's retention ends; an open-deliveries item when it has
held none for longer than the stream keeps records (so that no retry can find it gone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from roomcast.metrics.backlog import BACKLOG, OLDEST_OPEN_FROM, Backlog, backlog_of
from roomcast.metrics.model import OPEN_TOTAL, Resolution, Scope
from roomcast.metrics.tally import (
    ItemKey,
    Tally,
    bucket_sort_key,
    open_partition,
    scope_partition,
)
from roomcast.platform import HOUR_MS, TableAccess, items, key, ms_from_iso, now_ms

GUARD_PREFIX: Final = "g#"
BUCKET_ENTITY: Final = "metricsBucket"
OPEN_ENTITY: Final = "openDeliveries"
EMPTIED_KEPT_MS: Final = 25 * HOUR_MS  # past the stream's 24 hours of records
_WORKERS: Final = 8
# Attributes added by one UpdateItem: its expression stays under 1.5 KB of the 4 KB allowed.
MAX_ADDS: Final = 100


class MetricsTable(TableAccess):
    def flush(self, tally: Tally, shard_id: str) -> None:
        """Write a tally (each item once: module docstring): the open deliveries, then each
        touched scope's backlog as read back, with the buckets."""
        if tally.empty or tally.first_sequence is None or tally.last_sequence is None:
            return
        guard = _Guard(shard_id, tally.first_sequence, tally.last_sequence)
        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
            _each(pool, lambda entry: self._add_open(guard, *entry), tally.opens.items())
            partitions = sorted({partition for partition, _ in tally.buckets})
            backlogs = dict(zip(partitions, pool.map(self._backlog_of_partition, partitions), strict=True))
            _each(pool, lambda entry: self._add_bucket(guard, *entry, backlogs), tally.buckets.items())

    def _add_open(self, guard: _Guard, item_key: ItemKey, minutes: Counter[str]) -> None:
        answers = self._add(guard, item_key, minutes, {"entity": OPEN_ENTITY}, ("ttl",), first=(OPEN_TOTAL,))
        if answers[0] is None:
            return  # this tally is in it already
        answer = answers[0]
        left = items.from_attributes(answer.get("Attributes", {})).get(OPEN_TOTAL, 0)
        if int(left) <= 0:  # emptied: kept a while, then gone (unless it fills again first)
            self._update_if(
                key(*item_key),
                UpdateExpression="SET #ttl = :ttl",
                ConditionExpression="#open <= :zero",
                ExpressionAttributeNames={"#ttl": "ttl", "#open": OPEN_TOTAL},
                ExpressionAttributeValues={
                    ":ttl": {"N": str((now_ms() + EMPTIED_KEPT_MS) // 1000)},
                    ":zero": {"N": "0"},
                },
            )

    def _add_bucket(
        self, guard: _Guard, item_key: ItemKey, amounts: Counter[str], backlogs: Mapping[str, Backlog]
    ) -> None:
        partition, sort_key = item_key
        resolution, _, start = sort_key.partition("#")
        expires_s = (ms_from_iso(start) + Resolution(resolution).kept_ms) // 1000
        backlog = backlogs[partition]
        sets: dict[str, Any] = {"entity": BUCKET_ENTITY, "ttl": expires_s, BACKLOG: backlog.open}
        removes: tuple[str, ...] = ()
        if backlog.oldest_from_ms is None:
            removes = (OLDEST_OPEN_FROM,)
        else:
            sets[OLDEST_OPEN_FROM] = backlog.oldest_from_ms
        self._add(guard, item_key, amounts, sets, removes)

    def _add(
        self,
        guard: _Guard,
        item_key: ItemKey,
        amounts: Mapping[str, int],
        sets: Mapping[str, Any],
        removes: tuple[str, ...],
        first: tuple[str, ...] = (),
    ) -> list[Any]:
        """The amounts added to an item in parts of at most MAX_ADDS attributes (DynamoDB takes an
        expression of 4 KB at most): the first part with ``sets`` and ``removes`` and the names of
        ``first``, each part under its own guard (a retried tally makes the same parts). Each
        part's answer (None where it was in the item already)."""
        names = [*(n for n in first if n in amounts), *sorted(n for n in amounts if n not in first)]
        parts = [names[i : i + MAX_ADDS] for i in range(0, len(names), MAX_ADDS)] or [[]]
        answers = []
        for index, part in enumerate(parts):
            request = guard.update(
                {n: amounts[n] for n in part},
                sets if index == 0 else {},
                removes if index == 0 else (),
                index,
            )
            answers.append(self._update_if(key(*item_key), **request, ReturnValues="UPDATED_NEW"))
        return answers

    def _backlog_of_partition(self, partition: str) -> Backlog:
        return backlog_of(self._query_all(f"{partition}#OPEN"))

    def backlog(self, scope: Scope) -> Backlog:
        """A scope's open deliveries now."""
        return backlog_of(self._query_all(open_partition(scope)))

    def buckets(self, scope: Scope, resolution: Resolution, from_ms: int, to_ms: int) -> list[items.Item]:
        """A scope's buckets that start in [from_ms, to_ms), oldest first."""
        low = bucket_sort_key(resolution, resolution.start_of(from_ms))
        high = bucket_sort_key(resolution, resolution.start_of(to_ms - 1))
        found = []
        pages = self._client.get_paginator("query").paginate(
            TableName=self._table_name,
            KeyConditionExpression="PK = :pk AND SK BETWEEN :low AND :high",
            ExpressionAttributeValues={
                ":pk": {"S": scope_partition(scope)},
                ":low": {"S": low},
                ":high": {"S": high},
            },
        )
        for page in pages:
            found += [items.from_attributes(raw) for raw in page.get("Items", [])]
        return found

    def bucket_before(self, scope: Scope, resolution: Resolution, from_ms: int) -> items.Item | None:
        """A scope's last bucket before ``from_ms`` (its backlog carries into the window)."""
        answer = self._client.query(
            TableName=self._table_name,
            KeyConditionExpression="PK = :pk AND SK BETWEEN :low AND :high",
            ExpressionAttributeValues={
                ":pk": {"S": scope_partition(scope)},
                ":low": {"S": f"{resolution.value}#"},
                ":high": {"S": bucket_sort_key(resolution, resolution.start_of(from_ms) - 1)},
            },
            ScanIndexForward=False,
            Limit=1,
        )
        found = answer.get("Items", [])
        return items.from_attributes(found[0]) if found else None


@dataclass(frozen=True)
class _Guard:
    """The condition and the mark that make a flush's update of an item happen once."""

    shard_id: str
    first_sequence: str
    last_sequence: str

    def update(
        self,
        amounts: Mapping[str, int],
        sets: Mapping[str, Any],
        removes: tuple[str, ...] = (),
        part: int = 0,
    ) -> dict[str, Any]:
        """The UpdateItem arguments of one part of an item's amounts (``part`` > 0: its own mark)."""
        mark = f"{GUARD_PREFIX}{self.shard_id}" + (f"#{part}" if part else "")
        names = {"#g": mark}
        values = items.to_attributes({":lo": self.first_sequence, ":hi": self.last_sequence})
        set_parts, add_parts, remove_parts = ["#g = :hi"], [], []
        for index, (name, value) in enumerate(sets.items()):
            names[f"#s{index}"] = name
            values |= items.to_attributes({f":s{index}": value})
            set_parts.append(f"#s{index} = :s{index}")
        for index, (name, amount) in enumerate(sorted(amounts.items())):
            names[f"#a{index}"] = name
            values[f":a{index}"] = {"N": str(amount)}
            add_parts.append(f"#a{index} :a{index}")
        for index, name in enumerate(removes):
            names[f"#r{index}"] = name
            remove_parts.append(f"#r{index}")
        expression = "SET " + ", ".join(set_parts)
        expression += f" ADD {', '.join(add_parts)}" if add_parts else ""
        expression += f" REMOVE {', '.join(remove_parts)}" if remove_parts else ""
        return {
            "UpdateExpression": expression,
            "ConditionExpression": "attribute_not_exists(#g) OR #g < :lo",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }


def _each[T](pool: ThreadPoolExecutor, write: Callable[[T], None], entries: Iterable[T]) -> None:
    for _ in pool.map(write, entries):
        pass  # each raises here, if it failed
