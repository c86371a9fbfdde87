"""Delivery policy and exponential backoff: a table of policies, then properties over the API bounds."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from roomcast.catalog.model import DeliveryOverrides, Room, Subscription, SubscriptionStatus, SubscriptionType
from roomcast.catalog.policy import (
    DeliveryPolicy,
    FailureOutcome,
    NextStep,
    ScheduledAttempt,
    after_failure,
    base_delay_ms,
    effective_policy,
    expires_at,
    is_expired,
    retry_delay_ms,
    schedule,
)
from roomcast.platform import limits
from roomcast.platform.clock import DAY_MS

SEVEN_DAYS_MS = limits.MAX_SINGLE_DELAY_MS
# The DESIGN example: delay 1 000 ms, multiplier 2, attempts 4 → tries at +0, +1 s, +3 s, +7 s, +15 s.
DESIGN_EXAMPLE = DeliveryPolicy(delivery_delay_ms=1_000, delivery_delay_multiplier=2.0, delivery_attempts=4)


# --- base delay: the formula or the schedule, capped -------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "failed_attempt", "expected_delay_ms"),
    [
        pytest.param(DESIGN_EXAMPLE, 0, 1_000, id="design-after-attempt-0"),
        pytest.param(DESIGN_EXAMPLE, 1, 2_000, id="design-after-attempt-1"),
        pytest.param(DESIGN_EXAMPLE, 2, 4_000, id="design-after-attempt-2"),
        pytest.param(DESIGN_EXAMPLE, 3, 8_000, id="design-after-attempt-3"),
        pytest.param(DeliveryPolicy(1_000, 1.0, 50), 0, 1_000, id="multiplier-1-first"),
        pytest.param(DeliveryPolicy(1_000, 1.0, 50), 7, 1_000, id="multiplier-1-constant"),
        pytest.param(DeliveryPolicy(1_000, 1.0, 50), 50, 1_000, id="multiplier-1-last"),
        pytest.param(DeliveryPolicy(1_000, 1.5, 10), 1, 1_500, id="multiplier-1.5-attempt-1"),
        pytest.param(DeliveryPolicy(1_000, 1.5, 10), 2, 2_250, id="multiplier-1.5-attempt-2"),
        pytest.param(DeliveryPolicy(1_000, 1.5, 10), 3, 3_375, id="multiplier-1.5-attempt-3"),
        pytest.param(DeliveryPolicy(1_000, 1.5, 10), 5, 7_594, id="multiplier-1.5-rounds-7593.75-up"),
        pytest.param(DeliveryPolicy(1_000, 1.5, 10), 6, 11_391, id="multiplier-1.5-rounds-11390.625-up"),
        pytest.param(DeliveryPolicy(1_000, 1.25, 10), 3, 1_953, id="multiplier-1.25-rounds-1953.125-down"),
        pytest.param(DeliveryPolicy(0, 2.0, 50), 0, 0, id="delay-0-first"),
        pytest.param(DeliveryPolicy(0, 10.0, 50), 50, 0, id="delay-0-stays-0"),
        pytest.param(DeliveryPolicy(1_000, 10.0, 50), 5, 100_000_000, id="multiplier-10-below-cap"),
        pytest.param(DeliveryPolicy(1_000, 10.0, 50), 6, SEVEN_DAYS_MS, id="multiplier-10-hits-7-days"),
        pytest.param(DeliveryPolicy(1_000, 10.0, 50), 50, SEVEN_DAYS_MS, id="multiplier-10-attempt-50"),
        pytest.param(
            DeliveryPolicy(limits.MAX_DELIVERY_DELAY_MS, 10.0, 50), 50, SEVEN_DAYS_MS, id="largest-policy"
        ),
        pytest.param(DeliveryPolicy(1_000, 2.0, 10, max_delay_ms=5_000), 2, 4_000, id="below-max-delay"),
        pytest.param(DeliveryPolicy(1_000, 2.0, 10, max_delay_ms=5_000), 3, 5_000, id="capped-by-max-delay"),
        pytest.param(DeliveryPolicy(1_000, 2.0, 10, max_delay_ms=5_000), 9, 5_000, id="stays-at-max-delay"),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 50, max_delay_ms=30 * DAY_MS),
            49,
            SEVEN_DAYS_MS,
            id="max-delay-above-7-days-still-7-days",
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, retry_schedule_ms=(500, 60_000, 2_000)), 0, 500, id="schedule-first"
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, retry_schedule_ms=(500, 60_000, 2_000)),
            1,
            60_000,
            id="schedule-replaces-formula",
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, retry_schedule_ms=(500, 60_000, 2_000)),
            2,
            2_000,
            id="schedule-last",
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 50, retry_schedule_ms=(500, 60_000, 2_000)),
            40,
            2_000,
            id="schedule-last-entry-repeats",
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, max_delay_ms=10_000, retry_schedule_ms=(500, 60_000)),
            1,
            10_000,
            id="schedule-entry-capped-by-max-delay",
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, retry_schedule_ms=(0,)), 3, 0, id="schedule-of-zero-retries-at-once"
        ),
    ],
)
def test_base_delay_follows_formula_or_schedule_within_the_cap(
    policy: DeliveryPolicy, failed_attempt: int, expected_delay_ms: int
) -> None:
    # When
    delay_ms = base_delay_ms(policy, failed_attempt)

    # Then
    assert delay_ms == expected_delay_ms


def test_base_delay_refuses_a_negative_attempt() -> None:
    # When / Then
    with pytest.raises(ValueError, match="from 0"):
        base_delay_ms(DESIGN_EXAMPLE, -1)


def test_equal_exact_delays_round_to_the_same_millisecond() -> None:
    # Given: two policies whose T(1) is exactly 7.5 ms (1.5 and 2.5 are exact binary fractions)
    five_times_one_and_a_half = DeliveryPolicy(5, 1.5, 3)
    three_times_two_and_a_half = DeliveryPolicy(3, 2.5, 3)

    # When
    first = base_delay_ms(five_times_one_and_a_half, 1)
    second = base_delay_ms(three_times_two_and_a_half, 1)

    # Then
    assert first == second


# --- jitter and Retry-After -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "failed_attempt", "random_fraction", "expected_delay_ms"),
    [
        pytest.param(DeliveryPolicy(1_000, 2.0, 5, jitter=0.0), 0, 0.9, 1_000, id="jitter-0-exact"),
        pytest.param(DeliveryPolicy(1_000, 2.0, 5, jitter=1.0), 0, 0.0, 1_000, id="fraction-0-exact"),
        pytest.param(DeliveryPolicy(1_000, 2.0, 5, jitter=0.5), 0, 0.5, 1_250, id="half-of-half"),
        pytest.param(DeliveryPolicy(1_000, 2.0, 5, jitter=1.0), 0, 0.999, 1_999, id="up-to-double"),
        pytest.param(DeliveryPolicy(1_000, 2.0, 5, jitter=0.2), 2, 0.5, 4_400, id="jitter-of-later-attempt"),
        pytest.param(DeliveryPolicy(1_000, 1.5, 5, jitter=0.1), 3, 0.5, 3_544, id="rounds-3543.75-up"),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, max_delay_ms=1_500, jitter=1.0), 0, 0.9, 1_500, id="never-past-cap"
        ),
        pytest.param(
            DeliveryPolicy(5_000, 2.0, 5, max_delay_ms=1_000, jitter=1.0), 0, 0.9, 1_000, id="base-at-cap"
        ),
        pytest.param(
            DeliveryPolicy(1_000, 10.0, 50, jitter=1.0), 50, 0.9, SEVEN_DAYS_MS, id="never-past-7-days"
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 5, jitter=0.5, retry_schedule_ms=(2_000,)),
            3,
            0.5,
            2_500,
            id="schedule",
        ),
    ],
)
def test_jitter_stretches_the_delay_by_up_to_its_fraction_within_the_cap(
    policy: DeliveryPolicy, failed_attempt: int, random_fraction: float, expected_delay_ms: int
) -> None:
    # When
    delay_ms = retry_delay_ms(policy, failed_attempt, random_fraction=random_fraction)

    # Then
    assert delay_ms == expected_delay_ms


@pytest.mark.parametrize("random_fraction", [-0.1, -1e-12, 1.0, 1.5, math.nan, math.inf])
def test_random_fraction_outside_zero_to_one_is_refused(random_fraction: float) -> None:
    # Given
    policy = DeliveryPolicy(1_000, 2.0, 5, jitter=0.5)

    # When / Then
    with pytest.raises(ValueError, match="random_fraction"):
        retry_delay_ms(policy, 0, random_fraction=random_fraction)


@pytest.mark.parametrize(
    ("policy", "retry_after_ms", "expected_delay_ms"),
    [
        pytest.param(DESIGN_EXAMPLE, 5_000, 5_000, id="raises-the-delay"),
        pytest.param(DESIGN_EXAMPLE, 1_001, 1_001, id="raises-by-a-millisecond"),
        pytest.param(DESIGN_EXAMPLE, 1_000, 1_000, id="equal-changes-nothing"),
        pytest.param(DESIGN_EXAMPLE, 10, 1_000, id="never-lowers"),
        pytest.param(DESIGN_EXAMPLE, 0, 1_000, id="zero-never-lowers"),
        pytest.param(DESIGN_EXAMPLE, 30 * DAY_MS, SEVEN_DAYS_MS, id="bounded-by-7-days"),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 4, max_delay_ms=2_000), 60_000, 60_000, id="may-exceed-max-delay"
        ),
        pytest.param(
            DeliveryPolicy(1_000, 2.0, 4, jitter=1.0), 1_200, 1_500, id="never-lowers-jittered-delay"
        ),
    ],
)
def test_retry_after_raises_the_delay_never_lowers_it_up_to_7_days(
    policy: DeliveryPolicy, retry_after_ms: int, expected_delay_ms: int
) -> None:
    # When
    delay_ms = retry_delay_ms(policy, 0, retry_after_ms=retry_after_ms, random_fraction=0.5)

    # Then
    assert delay_ms == expected_delay_ms


# --- after a failure: retry, dead or expired --------------------------------------------------------


def test_design_example_retries_at_1_3_7_15_seconds_then_dies() -> None:
    # Given: the first delivery (attempt 0) fails at publish time
    now_ms = 0
    attempt = 0
    tries_at_ms = [now_ms]

    # When: every attempt fails the moment it is made
    step = after_failure(DESIGN_EXAMPLE, attempt, now_ms, expires_at_ms=None)
    while step.outcome is FailureOutcome.RETRY:
        assert step.due_at_ms is not None
        now_ms = step.due_at_ms
        attempt = step.next_attempt
        tries_at_ms.append(now_ms)
        step = after_failure(DESIGN_EXAMPLE, attempt, now_ms, expires_at_ms=None)

    # Then
    assert tries_at_ms == [0, 1_000, 3_000, 7_000, 15_000]
    assert attempt == 4
    assert step.outcome is FailureOutcome.DEAD


def test_retry_step_names_the_next_attempt_its_delay_and_due_time() -> None:
    # When
    step = after_failure(DESIGN_EXAMPLE, 2, now_ms=10_000, expires_at_ms=None)

    # Then
    assert step == NextStep(FailureOutcome.RETRY, next_attempt=3, delay_ms=4_000, due_at_ms=14_000)


def test_failure_of_last_attempt_is_dead() -> None:
    # When
    step = after_failure(DESIGN_EXAMPLE, 4, now_ms=15_000, expires_at_ms=None)

    # Then
    assert step.outcome is FailureOutcome.DEAD
    assert step.delay_ms == 0
    assert step.due_at_ms is None


def test_policy_without_redeliveries_is_dead_after_the_first_failure() -> None:
    # Given
    policy = DeliveryPolicy(1_000, 2.0, delivery_attempts=0)

    # When
    step = after_failure(policy, 0, now_ms=0, expires_at_ms=None)

    # Then
    assert step.outcome is FailureOutcome.DEAD


def test_dead_wins_over_a_retry_after() -> None:
    # When
    step = after_failure(DESIGN_EXAMPLE, 4, now_ms=0, expires_at_ms=None, retry_after_ms=1_000)

    # Then
    assert step.outcome is FailureOutcome.DEAD


@pytest.mark.parametrize(
    ("expires_at_ms", "expected_outcome"),
    [
        pytest.param(5_999, FailureOutcome.EXPIRED, id="due-after-expiry"),
        pytest.param(6_000, FailureOutcome.EXPIRED, id="due-at-expiry"),
        pytest.param(6_001, FailureOutcome.RETRY, id="due-1-ms-before-expiry"),
        pytest.param(None, FailureOutcome.RETRY, id="never-expires"),
    ],
)
def test_next_attempt_at_or_after_expiry_is_expired(
    expires_at_ms: int | None, expected_outcome: FailureOutcome
) -> None:
    # Given: attempt 1 fails at 4 000 ms, so attempt 2 is due 2 000 ms later, at 6 000 ms
    now_ms = 4_000

    # When
    step = after_failure(DESIGN_EXAMPLE, 1, now_ms, expires_at_ms)

    # Then
    assert step.outcome is expected_outcome
    assert step.due_at_ms == 6_000


def test_expired_step_still_says_when_the_attempt_would_have_been() -> None:
    # When
    step = after_failure(DESIGN_EXAMPLE, 1, now_ms=4_000, expires_at_ms=5_000)

    # Then
    assert step == NextStep(FailureOutcome.EXPIRED, next_attempt=2, delay_ms=2_000, due_at_ms=6_000)


def test_without_expiry_even_a_7_day_wait_is_a_retry() -> None:
    # Given
    policy = DeliveryPolicy(limits.MAX_DELIVERY_DELAY_MS, 10.0, 50)

    # When
    step = after_failure(policy, 49, now_ms=10**15, expires_at_ms=None)

    # Then
    assert step == NextStep(FailureOutcome.RETRY, 50, SEVEN_DAYS_MS, 10**15 + SEVEN_DAYS_MS)


def test_retry_after_that_reaches_the_expiry_makes_the_message_expired() -> None:
    # When
    step = after_failure(DESIGN_EXAMPLE, 0, now_ms=0, expires_at_ms=60_000, retry_after_ms=60_000)

    # Then
    assert step.outcome is FailureOutcome.EXPIRED
    assert step.delay_ms == 60_000


def test_after_failure_draws_jitter_from_the_random_fraction() -> None:
    # Given
    policy = DeliveryPolicy(1_000, 2.0, 4, jitter=0.5)

    # When
    step = after_failure(policy, 0, now_ms=100, expires_at_ms=None, random_fraction=0.5)

    # Then
    assert step == NextStep(FailureOutcome.RETRY, next_attempt=1, delay_ms=1_250, due_at_ms=1_350)


@pytest.mark.parametrize(
    ("now_ms", "expires_at_ms", "expired"),
    [
        pytest.param(999, 1_000, False, id="before"),
        pytest.param(1_000, 1_000, True, id="at"),
        pytest.param(1_001, 1_000, True, id="after"),
        pytest.param(10**15, None, False, id="no-expiry"),
    ],
)
def test_message_is_expired_at_and_after_its_expiry(
    now_ms: int, expires_at_ms: int | None, expired: bool
) -> None:
    # When / Then
    assert is_expired(now_ms, expires_at_ms) is expired


@pytest.mark.parametrize(
    ("message_expiration_ms", "expected_expires_at_ms"),
    [
        pytest.param(None, None, id="none-never-expires"),
        pytest.param(0, None, id="zero-never-expires"),
        pytest.param(60_000, 1_700_000_060_000, id="published-plus-expiration"),
    ],
)
def test_expiry_is_publish_time_plus_expiration(
    message_expiration_ms: int | None, expected_expires_at_ms: int | None
) -> None:
    # When / Then
    assert expires_at(1_700_000_000_000, message_expiration_ms) == expected_expires_at_ms


# --- the whole schedule ------------------------------------------------------------------------------


def test_schedule_of_design_example_lists_every_attempt() -> None:
    # When
    rows = schedule(DESIGN_EXAMPLE, message_expiration_ms=None)

    # Then
    assert rows == [
        ScheduledAttempt(attempt=0, delay_ms=0, since_publish_ms=0),
        ScheduledAttempt(attempt=1, delay_ms=1_000, since_publish_ms=1_000),
        ScheduledAttempt(attempt=2, delay_ms=2_000, since_publish_ms=3_000),
        ScheduledAttempt(attempt=3, delay_ms=4_000, since_publish_ms=7_000),
        ScheduledAttempt(attempt=4, delay_ms=8_000, since_publish_ms=15_000),
    ]


def test_schedule_marks_attempts_at_or_after_the_expiration_as_cut() -> None:
    # When
    rows = schedule(DESIGN_EXAMPLE, message_expiration_ms=7_000)

    # Then: attempt 3 falls exactly on the expiration, so it is cut too
    assert [(row.since_publish_ms, row.cut_by_expiry) for row in rows] == [
        (0, False),
        (1_000, False),
        (3_000, False),
        (7_000, True),
        (15_000, True),
    ]


@pytest.mark.parametrize("message_expiration_ms", [None, 0])
def test_schedule_without_expiration_cuts_nothing(message_expiration_ms: int | None) -> None:
    # When
    rows = schedule(DeliveryPolicy(1_000, 10.0, 50), message_expiration_ms)

    # Then
    assert not any(row.cut_by_expiry for row in rows)


def test_schedule_without_redeliveries_is_the_first_delivery_only() -> None:
    # When
    rows = schedule(DeliveryPolicy(1_000, 2.0, 0), message_expiration_ms=None)

    # Then
    assert rows == [ScheduledAttempt(0, 0, 0)]


def test_schedule_uses_the_capped_retry_schedule() -> None:
    # Given
    policy = DeliveryPolicy(1_000, 2.0, 4, max_delay_ms=10_000, retry_schedule_ms=(500, 60_000, 2_000))

    # When
    rows = schedule(policy, message_expiration_ms=None)

    # Then
    assert [row.delay_ms for row in rows] == [0, 500, 10_000, 2_000, 2_000]


# --- effective policy --------------------------------------------------------------------------------


def _room() -> Room:
    return Room(
        id="room_1",
        tenant_id="tenant_1",
        name="orders",
        message_expiration_ms=3_600_000,
        delivery_delay_ms=1_000,
        delivery_delay_multiplier=2.0,
        delivery_attempts=5,
        event_types=(),
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-01T00:00:00Z",
    )


def _subscription(overrides: DeliveryOverrides) -> Subscription:
    return Subscription(
        id="sub_1",
        room_id="room_1",
        tenant_id="tenant_1",
        type=SubscriptionType.PUSH,
        status=SubscriptionStatus.ACTIVE,
        event_types=(),
        overrides=overrides,
        failover_subscription_id=None,
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-01T00:00:00Z",
        push_url="https://example.com/hook",
    )


def test_subscription_without_overrides_takes_the_room_policy() -> None:
    # When
    policy = effective_policy(_room(), _subscription(DeliveryOverrides()))

    # Then
    assert policy == DeliveryPolicy(
        delivery_delay_ms=1_000,
        delivery_delay_multiplier=2.0,
        delivery_attempts=5,
        max_delay_ms=None,
        jitter=0.0,
        retry_schedule_ms=None,
    )


def test_subscription_overrides_win_over_the_room() -> None:
    # Given
    overrides = DeliveryOverrides(
        delivery_delay_ms=250,
        delivery_delay_multiplier=3.0,
        delivery_attempts=7,
        max_delay_ms=60_000,
        jitter=0.25,
        retry_schedule_ms=(100, 200),
    )

    # When
    policy = effective_policy(_room(), _subscription(overrides))

    # Then
    assert policy == DeliveryPolicy(
        250, 3.0, 7, max_delay_ms=60_000, jitter=0.25, retry_schedule_ms=(100, 200)
    )


@pytest.mark.parametrize(
    ("overrides", "expected_policy"),
    [
        pytest.param(DeliveryOverrides(delivery_delay_ms=250), DeliveryPolicy(250, 2.0, 5), id="delay"),
        pytest.param(
            DeliveryOverrides(delivery_delay_multiplier=1.5), DeliveryPolicy(1_000, 1.5, 5), id="multiplier"
        ),
        pytest.param(DeliveryOverrides(delivery_attempts=9), DeliveryPolicy(1_000, 2.0, 9), id="attempts"),
        pytest.param(
            DeliveryOverrides(max_delay_ms=5_000), DeliveryPolicy(1_000, 2.0, 5, max_delay_ms=5_000), id="cap"
        ),
        pytest.param(DeliveryOverrides(jitter=0.5), DeliveryPolicy(1_000, 2.0, 5, jitter=0.5), id="jitter"),
    ],
)
def test_each_override_replaces_only_its_own_field(
    overrides: DeliveryOverrides, expected_policy: DeliveryPolicy
) -> None:
    # When
    policy = effective_policy(_room(), _subscription(overrides))

    # Then
    assert policy == expected_policy


def test_zero_overrides_win_over_the_room() -> None:
    # Given: 0 is a value, not "unset"
    overrides = DeliveryOverrides(delivery_delay_ms=0, delivery_attempts=0, jitter=0.0)

    # When
    policy = effective_policy(_room(), _subscription(overrides))

    # Then
    assert policy == DeliveryPolicy(0, 2.0, 0, jitter=0.0)


# --- properties over the API bounds ------------------------------------------------------------------

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)

delays_ms = st.integers(min_value=0, max_value=limits.MAX_DELIVERY_DELAY_MS)
multipliers = st.floats(min_value=1.0, max_value=limits.MAX_DELIVERY_DELAY_MULTIPLIER)
attempt_counts = st.integers(min_value=0, max_value=limits.MAX_DELIVERY_ATTEMPTS)
jitters = st.floats(min_value=0.0, max_value=1.0)
max_delays_ms = st.none() | st.integers(min_value=limits.MIN_MAX_DELAY_MS, max_value=SEVEN_DAYS_MS)
retry_schedules_ms = st.none() | st.lists(
    st.integers(min_value=0, max_value=SEVEN_DAYS_MS), min_size=1, max_size=limits.MAX_RETRY_SCHEDULE_LENGTH
).map(tuple)
random_fractions = st.floats(min_value=0.0, max_value=1.0, exclude_max=True)
failed_attempts = st.integers(min_value=0, max_value=limits.MAX_DELIVERY_ATTEMPTS)

any_policy = st.builds(
    DeliveryPolicy,
    delivery_delay_ms=delays_ms,
    delivery_delay_multiplier=multipliers,
    delivery_attempts=attempt_counts,
    max_delay_ms=max_delays_ms,
    jitter=jitters,
    retry_schedule_ms=retry_schedules_ms,
)
formula_policy_without_jitter = st.builds(
    DeliveryPolicy,
    delivery_delay_ms=delays_ms,
    delivery_delay_multiplier=multipliers,
    delivery_attempts=attempt_counts,
    max_delay_ms=max_delays_ms,
)


def _cap_ms(policy: DeliveryPolicy) -> int:
    return SEVEN_DAYS_MS if policy.max_delay_ms is None else min(policy.max_delay_ms, SEVEN_DAYS_MS)


@PROPERTY_SETTINGS
@given(policy=any_policy, failed_attempt=failed_attempts, random_fraction=random_fractions)
def test_jitter_never_makes_a_retry_earlier_nor_later_than_the_cap(
    policy: DeliveryPolicy, failed_attempt: int, random_fraction: float
) -> None:
    # Given
    base_ms = base_delay_ms(policy, failed_attempt)

    # When
    delay_ms = retry_delay_ms(policy, failed_attempt, random_fraction=random_fraction)

    # Then
    assert base_ms <= delay_ms <= max(base_ms, _cap_ms(policy))
    assert delay_ms <= SEVEN_DAYS_MS


@PROPERTY_SETTINGS
@given(policy=any_policy, failed_attempt=failed_attempts, random_fraction=random_fractions)
def test_jittered_delay_is_the_rounded_stretch_of_the_base_within_the_cap(
    policy: DeliveryPolicy, failed_attempt: int, random_fraction: float
) -> None:
    # Given
    base_ms = base_delay_ms(policy, failed_attempt)

    # When
    delay_ms = retry_delay_ms(policy, failed_attempt, random_fraction=random_fraction)

    # Then
    stretched_ms = round(base_ms * (1 + policy.jitter * random_fraction))
    assert delay_ms == min(stretched_ms, _cap_ms(policy))


@PROPERTY_SETTINGS
@given(
    policy=any_policy,
    failed_attempt=failed_attempts,
    random_fraction=random_fractions,
    retry_after_ms=st.integers(min_value=0, max_value=60 * DAY_MS),
)
def test_retry_after_only_raises_the_delay_and_never_past_7_days(
    policy: DeliveryPolicy, failed_attempt: int, random_fraction: float, retry_after_ms: int
) -> None:
    # Given
    without_ms = retry_delay_ms(policy, failed_attempt, random_fraction=random_fraction)

    # When
    with_ms = retry_delay_ms(
        policy, failed_attempt, retry_after_ms=retry_after_ms, random_fraction=random_fraction
    )

    # Then
    assert with_ms == max(without_ms, min(retry_after_ms, SEVEN_DAYS_MS))


@PROPERTY_SETTINGS
@given(policy=formula_policy_without_jitter, failed_attempt=st.integers(min_value=0, max_value=49))
def test_formula_delays_never_decrease_with_the_attempt(policy: DeliveryPolicy, failed_attempt: int) -> None:
    # When
    this_ms = retry_delay_ms(policy, failed_attempt)
    next_ms = retry_delay_ms(policy, failed_attempt + 1)

    # Then
    assert this_ms <= next_ms


@PROPERTY_SETTINGS
@given(policy=formula_policy_without_jitter, failed_attempt=failed_attempts)
def test_formula_delay_is_the_exact_product_to_the_nearest_millisecond_or_the_cap(
    policy: DeliveryPolicy, failed_attempt: int
) -> None:
    # Given
    exact_ms = (
        Fraction(policy.delivery_delay_ms) * Fraction(policy.delivery_delay_multiplier) ** failed_attempt
    )
    cap_ms = _cap_ms(policy)

    # When
    delay_ms = base_delay_ms(policy, failed_attempt)

    # Then
    if exact_ms >= cap_ms:
        assert delay_ms == cap_ms
    else:
        assert abs(delay_ms - exact_ms) <= Fraction(1, 2)


@PROPERTY_SETTINGS
@given(
    policy=any_policy,
    message_expiration_ms=st.none() | st.integers(min_value=0, max_value=limits.MAX_MESSAGE_EXPIRATION_MS),
)
def test_schedule_accumulates_base_delays_and_cuts_from_the_expiration_on(
    policy: DeliveryPolicy, message_expiration_ms: int | None
) -> None:
    # When
    rows = schedule(policy, message_expiration_ms)

    # Then
    assert rows[0] == ScheduledAttempt(0, 0, 0)
    assert [row.attempt for row in rows] == list(range(policy.delivery_attempts + 1))
    elapsed_ms = 0
    for row in rows[1:]:
        assert row.delay_ms == base_delay_ms(policy, row.attempt - 1)
        elapsed_ms += row.delay_ms
        assert row.since_publish_ms == elapsed_ms
        assert row.cut_by_expiry is bool(message_expiration_ms and elapsed_ms >= message_expiration_ms)
