"""bench/cost_model.py's Lambda duration: what Lambda would bill for an invocation measured locally."""

from __future__ import annotations

import pytest

from bench.cost_model import LAMBDA_MB_PER_VCPU, FunctionUsage, lambda_seconds
from roomcast_dev.functions import InvocationTiming


def test_waiting_counts_as_measured_and_cpu_at_lambdas_share_of_a_vcpu() -> None:
    # 100 ms locally: 20 ms of CPU, 60 ms in AWS calls, 20 ms waiting for something else
    timing = InvocationTiming(duration_ms=100, aws_wait_ms=60, cpu_ms=20)

    upper, lower = lambda_seconds(timing, memory_mb=256)

    stretch = LAMBDA_MB_PER_VCPU / 256
    assert upper == pytest.approx(0.080 + 0.020 * stretch)
    assert lower == pytest.approx(0.020 + 0.020 * stretch)


def test_cpu_is_not_stretched_from_one_vcpu_up() -> None:
    timing = InvocationTiming(duration_ms=100, aws_wait_ms=0, cpu_ms=100)

    assert lambda_seconds(timing, memory_mb=LAMBDA_MB_PER_VCPU) == pytest.approx((0.1, 0.1))
    assert lambda_seconds(timing, memory_mb=4096) == pytest.approx((0.1, 0.1))


def test_halving_memory_halves_what_waiting_costs_and_leaves_what_cpu_costs() -> None:
    waiting = [InvocationTiming(duration_ms=200, aws_wait_ms=200, cpu_ms=0)]
    computing = [InvocationTiming(duration_ms=50, aws_wait_ms=0, cpu_ms=50)]

    assert FunctionUsage.of(waiting, 256).gb_seconds == pytest.approx(
        FunctionUsage.of(waiting, 512).gb_seconds / 2
    )
    assert FunctionUsage.of(computing, 256).gb_seconds == pytest.approx(
        FunctionUsage.of(computing, 512).gb_seconds
    )
    # the waiting was all AWS calls: the lower bound drops it
    assert FunctionUsage.of(waiting, 512).gb_seconds_lower == 0


def test_a_functions_usage_sums_its_invocations_and_keeps_the_peak_memory() -> None:
    usage = FunctionUsage.of(
        [
            InvocationTiming(duration_ms=100, aws_wait_ms=50, cpu_ms=10, max_memory_mb=90),
            InvocationTiming(duration_ms=300, aws_wait_ms=150, cpu_ms=30, max_memory_mb=120),
        ],
        memory_mb=512,
    )

    assert (usage.invocations, usage.wall_ms, usage.cpu_ms, usage.aws_wait_ms) == (2, 400, 40, 200)
    assert usage.max_memory_mb == 120
