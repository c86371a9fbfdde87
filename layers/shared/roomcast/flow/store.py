"""Flow-control state shared by every push invocation: two small DynamoDB items per limited
subscription (docs/decisions/0016-flow-control.md).

| item        | PK                                   | SK            | attributes                  |
| ----------- | ------------------------------------ | ------------- | --------------------------- |
| rate        | ``TENANT#<tenant>#FLOW#<subId>``     | ``RATE``      | ``tatMs``                   |
| concurrency | ``TENANT#<tenant>#FLOW#<subId>``     | ``LEASES``    | ``leases`` {leaseId: expiresAtMs} |

Every change is one conditional UpdateItem: a rate slot is taken by moving ``tatMs`` on only if it
still holds the value this invocation saw (compare-and-set); a lease is added only while the map
holds fewer than ``maxConcurrency`` entries. Lapsed leases (a crashed invocation) are removed by
whoever finds them. Both items expire (TTL) a day after their last use.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.flow.ports import FlowKey, RateAnswer, RateKey
from roomcast.flow.rules import live_leases, reserve_start
from roomcast.platform import DAY_MS, TableAccess, is_condition_failure, items, key

STATE_TTL_MS: Final = DAY_MS
_RESERVE_TRIES: Final = 8
_ACQUIRE_TRIES: Final = 4


class FlowTable(TableAccess):
    """Rate slots and concurrency leases (the ``FlowGate`` port of roomcast.flow.ports)."""

    def __init__(self, table_name: str, client: Any = None) -> None:
        super().__init__(table_name, client)
        # The last tatMs seen per subscription: the first compare-and-set usually needs no read.
        self._seen_tat: dict[RateKey, int] = {}
        # One reservation at a time per subscription in this process: the threads of a batch take
        # their slots one after the other instead of losing compare-and-sets (each a write) to
        # each other; only other invocations race.
        self._reserving: dict[RateKey, threading.Lock] = {}

    def reserve_rate(self, flow: RateKey, interval_ms: int, now_ms: int, max_wait_ms: int) -> RateAnswer:
        with self._reserving.setdefault(flow, threading.Lock()):
            return self._reserve(flow, interval_ms, now_ms, max_wait_ms)

    def _reserve(self, flow: RateKey, interval_ms: int, now_ms: int, max_wait_ms: int) -> RateAnswer:
        seen = self._seen_tat.get(flow)
        reservation = reserve_start(now_ms, seen, interval_ms)
        for _ in range(_RESERVE_TRIES):
            if reservation.wait_ms(now_ms) > max_wait_ms:
                return RateAnswer(False, reservation)
            idle = seen is None or seen <= now_ms
            try:
                self._client.update_item(
                    TableName=self._table_name,
                    Key=key(flow.partition, "RATE"),
                    UpdateExpression="SET tatMs = :next, #ttl = :ttl",
                    ConditionExpression="attribute_not_exists(tatMs) OR tatMs <= :now"
                    if idle
                    else "tatMs = :seen",
                    ExpressionAttributeNames={"#ttl": "ttl"},
                    ExpressionAttributeValues={
                        ":next": {"N": str(reservation.next_tat_ms)},
                        ":ttl": {"N": str(_ttl_seconds(now_ms))},
                        **({":now": {"N": str(now_ms)}} if idle else {":seen": {"N": str(seen)}}),
                    },
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except ClientError as error:
                if not is_condition_failure(error):
                    raise
                seen = self._stored_tat(flow, error)
                reservation = reserve_start(now_ms, seen, interval_ms)
                continue
            self._seen_tat[flow] = reservation.next_tat_ms
            return RateAnswer(True, reservation)
        # Lost every race: other invocations are taking the slots; this one waits one more interval.
        return RateAnswer(False, reserve_start(now_ms, reservation.start_at_ms + interval_ms, interval_ms))

    def acquire_lease(
        self, flow: FlowKey, lease_id: str, max_concurrency: int, expires_at_ms: int, now_ms: int
    ) -> bool:
        """Take one of ``max_concurrency`` leases; False when all are held (and none has lapsed)."""
        for _ in range(_ACQUIRE_TRIES):
            try:
                self._client.update_item(
                    TableName=self._table_name,
                    Key=key(flow.partition, "LEASES"),
                    UpdateExpression="SET leases.#lease = :expires, #ttl = :ttl",
                    ConditionExpression="attribute_exists(leases) AND size(leases) < :max",
                    ExpressionAttributeNames={"#lease": lease_id, "#ttl": "ttl"},
                    ExpressionAttributeValues={
                        ":expires": {"N": str(expires_at_ms)},
                        ":max": {"N": str(max_concurrency)},
                        ":ttl": {"N": str(_ttl_seconds(now_ms))},
                    },
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
                return True
            except ClientError as error:
                if not is_condition_failure(error):
                    raise
                stored = _old_item(error)
            if stored is None or "leases" not in stored:
                if self._create_leases(flow, lease_id, expires_at_ms, now_ms):
                    return True
                continue
            leases: dict[str, int] = stored["leases"]
            live = live_leases(leases, now_ms)
            lapsed = {lease: expires for lease, expires in leases.items() if lease not in live}
            if not lapsed:
                return False
            self._remove_lapsed(flow, lapsed)
        return False

    def lease_free(self, flow: FlowKey, max_concurrency: int, now_ms: int) -> bool:
        """Whether a lease looks free: one strongly consistent read, so that a delivery waiting
        for room polls with reads and writes only when a write may succeed."""
        response = self._client.get_item(
            TableName=self._table_name,
            Key=key(flow.partition, "LEASES"),
            ConsistentRead=True,
            ProjectionExpression="leases",
        )
        stored = items.from_attributes(response["Item"]) if "Item" in response else {}
        return len(live_leases(stored.get("leases") or {}, now_ms)) < max_concurrency

    def release_lease(self, flow: FlowKey, lease_id: str) -> None:
        self._update_if(  # refused when the item is gone (TTL): nothing to release
            key(flow.partition, "LEASES"),
            UpdateExpression="REMOVE leases.#lease",
            ConditionExpression="attribute_exists(leases)",
            ExpressionAttributeNames={"#lease": lease_id},
        )

    def _create_leases(self, flow: FlowKey, lease_id: str, expires_at_ms: int, now_ms: int) -> bool:
        item = {"PK": flow.partition, "SK": "LEASES", "leases": {lease_id: expires_at_ms}}
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(item | {"ttl": _ttl_seconds(now_ms)}),
                ConditionExpression="attribute_not_exists(leases)",
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            return False
        return True

    def _remove_lapsed(self, flow: FlowKey, lapsed: dict[str, int]) -> None:
        """Remove leases that lapsed, each only if it still holds the expiry seen (a lease renewed
        meanwhile stays)."""
        names = {f"#l{i}": lease for i, lease in enumerate(lapsed)}
        values = {f":e{i}": {"N": str(expires)} for i, expires in enumerate(lapsed.values())}
        self._update_if(
            key(flow.partition, "LEASES"),
            UpdateExpression="REMOVE " + ", ".join(f"leases.{n}" for n in names),
            ConditionExpression=" AND ".join(f"leases.{n} = :e{i}" for i, n in enumerate(names)),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def _stored_tat(self, flow: RateKey, error: ClientError) -> int | None:
        stored = _old_item(error)
        if stored is None:
            response = self._client.get_item(
                TableName=self._table_name, Key=key(flow.partition, "RATE"), ConsistentRead=True
            )
            stored = items.from_attributes(response["Item"]) if "Item" in response else None
        tat = (stored or {}).get("tatMs")
        return int(tat) if tat is not None else None


def _old_item(error: ClientError) -> items.Item | None:
    raw = getattr(error, "response", {}).get("Item")
    return items.from_attributes(raw) if raw else None


def _ttl_seconds(now_ms: int) -> int:
    return (now_ms + STATE_TTL_MS) // 1000
