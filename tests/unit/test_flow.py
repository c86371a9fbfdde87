"""Flow control arithmetic (GCRA slots, waits) and admission over the fake flow store."""

from __future__ import annotations

import itertools
import threading
from dataclasses import replace

from hypothesis import given, strategies as st

from push_worker.admission import Admitted, FlowControl, HeldBack
from roomcast.catalog.model import DeliveryOverrides, Subscription, SubscriptionStatus, SubscriptionType
from roomcast.flow import rules as flow
from tests.fakes import FakeFlowGate

SUBSCRIPTION = Subscription(
    id="sub_" + "a" * 32,
    room_id="room_" + "b" * 32,
    tenant_id="tenant-a",
    type=SubscriptionType.PUSH,
    status=SubscriptionStatus.ACTIVE,
    event_types=(),
    overrides=DeliveryOverrides(),
    failover_subscription_id=None,
    created_at="2026-11-22T10:00:00.000Z",
    updated_at="2026-11-22T10:00:00.000Z",
    push_url="https://hooks.example.com/in",
    timeout_ms=10_000,
)


class FakeTime:
    """A clock that only moves when something sleeps."""

    def __init__(self) -> None:
        self.now_ms = 1_795_435_200_000
        self.slept: list[int] = []

    def clock(self) -> int:
        return self.now_ms

    def sleep_ms(self, milliseconds: int) -> None:
        self.slept.append(milliseconds)
        self.now_ms += milliseconds


def test_the_rate_interval_rounds_up_so_the_limit_is_never_exceeded() -> None:
    assert flow.rate_interval_ms(2) == 500
    assert flow.rate_interval_ms(3) == 334
    assert flow.rate_interval_ms(1000) == 1
    assert flow.rate_interval_ms(0.5) == 2000


@given(
    rate=st.floats(min_value=0.01, max_value=1000),
    arrivals=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=50),
)
def test_reserved_starts_are_never_closer_than_the_interval(rate: float, arrivals: list[int]) -> None:
    interval = flow.rate_interval_ms(rate)
    tat: int | None = None
    starts = []
    for arrival in sorted(arrivals):
        reservation = flow.reserve_start(arrival, tat, interval)
        assert reservation.start_at_ms >= arrival
        starts.append(reservation.start_at_ms)
        tat = reservation.next_tat_ms
    assert all(later - earlier >= interval for earlier, later in itertools.pairwise(starts))
    # ... so no window of one second holds more starts than the rate allows (rounded up).
    for start in starts:
        in_window = [s for s in starts if start <= s < start + 1000]
        assert len(in_window) <= max(1, -(-1000 // interval))


def test_paused_deliveries_are_rechecked_after_doubling_waits_up_to_the_cap() -> None:
    assert [flow.paused_wait_ms(h) for h in range(5)] == [1000, 2000, 4000, 8000, 16000]
    assert flow.paused_wait_ms(50) == flow.PAUSED_MAX_WAIT_MS


def test_a_held_back_delivery_waits_whole_seconds_spreading_out_with_each_hold() -> None:
    assert flow.held_back_delay_ms(0) == 1000
    assert flow.held_back_delay_ms(1200) == 2000
    assert flow.held_back_delay_ms(0, holds=3, random_fraction=1.0) == 8000
    assert flow.held_back_delay_ms(0, holds=30, random_fraction=1.0) == flow.HELD_BACK_SPREAD_MAX_MS


def test_without_limits_admission_costs_nothing() -> None:
    gate = FakeFlowGate()
    admission = FlowControl(gate).admit(SUBSCRIPTION)
    assert isinstance(admission, Admitted)
    admission.release()
    assert gate.writes == 0


def test_a_rate_limit_spaces_starts_by_sleeping_within_the_local_wait() -> None:
    # Given: 2 per second
    time, gate = FakeTime(), FakeFlowGate()
    control = FlowControl(gate, time.clock, time.sleep_ms)
    limited = replace(SUBSCRIPTION, rate_limit_per_second=2.0)
    start = time.now_ms

    # When: four requests arrive at once
    starts = []
    for _ in range(4):
        admission = control.admit(limited)
        assert isinstance(admission, Admitted)
        starts.append(time.now_ms - start)
        admission.release()

    # Then
    assert starts == [0, 500, 1000, 1500]


def test_a_slot_beyond_the_local_wait_is_held_back_without_taking_it() -> None:
    # Given: one per second, and eleven requests within the 5 s local wait
    time, gate = FakeTime(), FakeFlowGate()
    control = FlowControl(gate, time.clock, lambda ms: None)  # nobody actually waits
    limited = replace(SUBSCRIPTION, rate_limit_per_second=1.0)
    for _ in range(6):
        assert isinstance(control.admit(limited), Admitted)
    tat_before = dict(gate.tat_ms)

    # When
    held = control.admit(limited)

    # Then
    assert isinstance(held, HeldBack)
    assert (held.reason, held.wait_ms) == ("rateLimitPerSecond", 6000)
    assert gate.tat_ms == tat_before


def test_leases_bound_requests_in_flight_across_flow_controls_and_lapse_after_a_crash() -> None:
    # Given: two "invocations" sharing one store, maxConcurrency 2
    time, gate = FakeTime(), FakeFlowGate()
    first = FlowControl(gate, time.clock, time.sleep_ms, local_wait_ms=1000)
    second = FlowControl(gate, time.clock, time.sleep_ms, local_wait_ms=1000)
    limited = replace(SUBSCRIPTION, max_concurrency=2)

    # When
    a, b = first.admit(limited), second.admit(limited)
    refused = second.admit(limited)

    # Then
    assert isinstance(a, Admitted)
    assert isinstance(b, Admitted)
    assert refused == HeldBack(0, "maxConcurrency")
    a.release()
    assert isinstance(second.admit(limited), Admitted)

    # And a lease never released (a crash) lapses after the timeout and a margin
    time.now_ms += flow.lease_ms(10_000) + 1
    assert isinstance(first.admit(limited), Admitted)


def test_threads_of_one_invocation_never_exceed_the_limit() -> None:
    # Given: real threads and a real clock, limit 3
    gate = FakeFlowGate()
    control = FlowControl(gate, local_wait_ms=5_000)
    limited = replace(SUBSCRIPTION, max_concurrency=3)
    in_flight, most = 0, 0
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def request() -> None:
        nonlocal in_flight, most
        barrier.wait()
        admission = control.admit(limited)
        assert isinstance(admission, Admitted)
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        threading.Event().wait(0.02)
        with lock:
            in_flight -= 1
        admission.release()

    # When
    threads = [threading.Thread(target=request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then
    assert most == 3
    assert gate.leases[next(iter(gate.leases))] == {}
