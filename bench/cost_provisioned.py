"""The table in provisioned capacity with auto scaling (template.yaml ``TableCapacityMode``), priced
for the cost model's scenario beside on-demand: what its units cost at steady traffic, and from
what steady rate of deliveries it is the cheaper mode. No I/O (tests/unit/test_cost_provisioned.py).

Provisioned capacity is billed per capacity unit-hour held, whatever is used: one WCU writes 1 KB a
second, one RCU reads 4 KB a second strongly consistent (two eventually consistent reads), so a
write or read request unit of on-demand is one capacity unit-second. Auto scaling holds capacity at
``consumed / target utilisation`` once traffic has stayed long enough for it to follow (it scales
out after a couple of minutes above the target, in after about 15 minutes well below it), and never
below each capacity's minimum: the table and each index have their own, reads and writes apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from bench.cost_model import DYNAMODB_RRU_PER_MILLION, DYNAMODB_WRU_PER_MILLION, Run

# Public list prices, us-east-1, provisioned capacity (not changed by the on-demand cut of
# November 2024): USD per capacity unit-hour.
DYNAMODB_WCU_HOUR = 0.00065
DYNAMODB_RCU_HOUR = 0.00013
SECONDS_PER_HOUR = 3600
# The template's defaults (TableTargetUtilization, TableMin*Capacity; the Scheduled index: 1 each).
TARGET_UTILIZATION = 0.70
DEFAULT_MINIMUMS: Mapping[str, tuple[int, int]] = {"table": (5, 5), "ByRoom": (5, 5), "Scheduled": (1, 1)}


@dataclass(frozen=True)
class Consumption:
    """Units one delivery consumes on one part of the table (the table itself, or an index)."""

    wru: float
    rru: float


def usd_per_million_units(unit_hour_usd: float, utilization: float = TARGET_UTILIZATION) -> float:
    """What a million request units cost in provisioned capacity held at ``utilization``."""
    return unit_hour_usd / SECONDS_PER_HOUR / utilization * 1e6


def on_demand_usd_per_hour(per_delivery: Mapping[str, Consumption], deliveries_per_second: float) -> float:
    wru = sum(part.wru for part in per_delivery.values())
    rru = sum(part.rru for part in per_delivery.values())
    per_delivery_usd = (wru * DYNAMODB_WRU_PER_MILLION + rru * DYNAMODB_RRU_PER_MILLION) / 1e6
    return per_delivery_usd * deliveries_per_second * SECONDS_PER_HOUR


def provisioned_usd_per_hour(
    per_delivery: Mapping[str, Consumption],
    deliveries_per_second: float,
    minimums: Mapping[str, tuple[int, int]] = DEFAULT_MINIMUMS,
    utilization: float = TARGET_UTILIZATION,
) -> float:
    """The capacity auto scaling holds for a steady rate, each part at its minimum at least."""
    usd = 0.0
    for part in set(per_delivery) | set(minimums):
        used = per_delivery.get(part, Consumption(0.0, 0.0))
        minimum_wcu, minimum_rcu = minimums.get(part, (1, 1))
        wcu = max(float(minimum_wcu), used.wru * deliveries_per_second / utilization)
        rcu = max(float(minimum_rcu), used.rru * deliveries_per_second / utilization)
        usd += wcu * DYNAMODB_WCU_HOUR + rcu * DYNAMODB_RCU_HOUR
    return usd


def break_even_deliveries_per_second(
    per_delivery: Mapping[str, Consumption],
    minimums: Mapping[str, tuple[int, int]] = DEFAULT_MINIMUMS,
    utilization: float = TARGET_UTILIZATION,
) -> float:
    """The steady rate above which provisioned capacity costs less than on-demand (bisection: below
    it the minimums cost more; above it, on-demand grows faster than the capacity held); infinite
    when it never does (a target utilisation below about 29 %: each unit held costs more than
    on-demand's request unit)."""
    low, high = 0.0, 1e6
    if provisioned_usd_per_hour(per_delivery, high, minimums, utilization) > on_demand_usd_per_hour(
        per_delivery, high
    ):
        return math.inf
    for _ in range(100):
        middle = (low + high) / 2
        if provisioned_usd_per_hour(per_delivery, middle, minimums, utilization) > on_demand_usd_per_hour(
            per_delivery, middle
        ):
            low = middle
        else:
            high = middle
    return high


def consumption_per_delivery(run: Run) -> dict[str, Consumption]:
    """A run's units per delivery by part: each index's copies (the meter's ``-> <index> index``
    kinds) apart from the table's own writes. Reads are all put on the table (the meter does not
    tell an index's reads apart; the scenario reads none)."""
    deliveries = max(run.deliveries, 1)
    parts: dict[str, float] = {}
    for kind, written in run.writes_by_kind.items():
        part = kind.rpartition(" -> ")[2].removesuffix(" index") if " -> " in kind else "table"
        parts[part] = parts.get(part, 0.0) + written.wru / deliveries
    consumption = {part: Consumption(wru, 0.0) for part, wru in parts.items()}
    reads = run.units.get("dynamodb_rru", 0.0) / deliveries
    consumption["table"] = Consumption(parts.get("table", 0.0), reads)
    return consumption
