"""bench/deliver_at.py's arithmetic: a wait by hops costs a send per 15 minutes and an early
arrival for each but the last; by the scheduler, one invocation, two sends and one early arrival.
With the list prices and an early arrival of one request and up to 100 ms, the scheduler gets
cheaper past 30 minutes: where roomcast switches (SCHEDULER_ABOVE_MS)."""

from __future__ import annotations

import pytest

from bench.deliver_at import UnitCosts, crossover_ms, unit_costs
from roomcast.deliver_at.rules import SCHEDULER_ABOVE_MS
from roomcast.platform.clock import DAY_MS, MINUTE_MS


def test_hops_pay_per_fifteen_minutes_and_a_schedule_once() -> None:
    costs = UnitCosts(send=1.0, early_arrival=10.0, schedule=100.0)

    assert costs.by_hops(MINUTE_MS) == 1.0
    assert costs.by_hops(15 * MINUTE_MS) == 1.0
    assert costs.by_hops(16 * MINUTE_MS) == 2.0 + 10.0
    assert costs.by_hops(DAY_MS) == 96 * 1.0 + 95 * 10.0
    assert costs.by_scheduler() == 100.0 + 2.0 + 10.0


@pytest.mark.parametrize("early_seconds", [0.005, 0.03, 0.1])
def test_at_list_prices_the_crossover_is_where_roomcast_switches(early_seconds: float) -> None:
    assert (
        crossover_ms(unit_costs(early_requests=1, early_lambda_seconds=early_seconds)) == SCHEDULER_ABOVE_MS
    )
