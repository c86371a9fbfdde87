"""bench/cost_provisioned.py: the table in provisioned capacity with auto scaling against on-demand."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from bench.cost_model import DYNAMODB_WRU_PER_MILLION, Run, WriteKind
from bench.cost_provisioned import (
    DYNAMODB_WCU_HOUR,
    Consumption,
    break_even_deliveries_per_second,
    consumption_per_delivery,
    on_demand_usd_per_hour,
    provisioned_usd_per_hour,
    usd_per_million_units,
)

WRITES_ONLY = {"table": Consumption(1.0, 0.0)}


def test_a_unit_held_at_70_percent_costs_about_four_tenths_of_an_on_demand_unit() -> None:
    ratio = usd_per_million_units(DYNAMODB_WCU_HOUR, 0.70) / DYNAMODB_WRU_PER_MILLION

    assert ratio == pytest.approx(0.4127, abs=1e-4)


def test_below_the_minimums_provisioned_costs_the_minimums() -> None:
    minimums = {"table": (5, 5)}

    held = provisioned_usd_per_hour(WRITES_ONLY, 0.1, minimums)

    assert held == pytest.approx(5 * 0.00065 + 5 * 0.00013)


def test_break_even_is_where_on_demand_reaches_the_minimums_cost() -> None:
    # Given: one write unit a delivery, a table of 5 WCU and 5 RCU at least, nothing else
    minimums = {"table": (5, 5)}

    # When
    rate = break_even_deliveries_per_second(WRITES_ONLY, minimums)

    # Then: on-demand costs 0.625 USD per million, the minimums 0.0039 USD an hour
    assert rate == pytest.approx((5 * 0.00065 + 5 * 0.00013) / (3600 * 0.625e-6), rel=1e-6)
    assert on_demand_usd_per_hour(WRITES_ONLY, rate) == pytest.approx(
        provisioned_usd_per_hour(WRITES_ONLY, rate, minimums)
    )


def test_no_break_even_when_a_unit_held_costs_more_than_an_on_demand_one() -> None:
    assert break_even_deliveries_per_second(WRITES_ONLY, {"table": (1, 1)}, utilization=0.25) == math.inf


def test_index_copies_are_their_indexes_writes_and_reads_go_to_the_table() -> None:
    run = Run(
        name="scenario",
        messages=10,
        api_requests=1,
        deliveries=50,
        first_try_failures=0,
        requests=Counter(),
        units={"dynamodb_wru": 70.0, "dynamodb_rru": 5.0},
        units_by_operation={},
        functions={},
        emulator_seconds={},
        log_bytes=0,
        seconds=1.0,
        writes_by_kind={
            "delivery record: delivered (first write)": WriteKind(50, 50.0, 400 * 50),
            "message": WriteKind(10, 10.0, 780 * 10),
            "message -> ByRoom index": WriteKind(10, 10.0, 780 * 10),
        },
    )

    consumption = consumption_per_delivery(run)

    assert consumption == {"table": Consumption(1.2, 0.1), "ByRoom": Consumption(0.2, 0.0)}
