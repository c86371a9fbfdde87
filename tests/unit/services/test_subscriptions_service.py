"""SubscriptionsService with in-memory fakes: secrets, queues, limits, push URLs, failover, PATCH."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from management_api.subscriptions.models import SubscriptionPatch
from roomcast.catalog.model import Subscription, SubscriptionStatus, SubscriptionType
from roomcast.messages.ports import Outgoing
from roomcast.outbox.tasks import SUBSCRIPTION_DELETED, Sweep, task_from_json
from roomcast.platform import limits
from roomcast.platform.errors import Conflict, InvalidRequest, LimitExceeded, PushOnly
from tests.fakes import FakeSender
from tests.unit.services.management import SETTLE_SECONDS, TENANT, Management, subscription_request

PUSH_URL = "https://hooks.example.com/in"


def _patch(body: str) -> SubscriptionPatch:
    return SubscriptionPatch.model_validate_json(body)


def _refusal(error: pytest.ExceptionInfo[InvalidRequest]) -> str:
    return (
        error.value.message + " " + " ".join(d["field"] + " " + d["problem"] for d in error.value.details)
    ).lower()


def test_a_push_subscription_gets_a_signing_secret_once_and_the_default_timeout() -> None:
    # Given
    management = Management()
    room = management.room()

    # When
    created = management.subscriptions.create(
        TENANT, room.id, subscription_request(type="PUSH", pushUrl=PUSH_URL)
    )

    # Then
    assert created.signing_secret is not None
    assert created.signing_secret.startswith("whsec_")
    assert [s.secret for s in created.subscription.signing_secrets] == [created.signing_secret]
    assert created.subscription.timeout_ms == limits.DEFAULT_PUSH_TIMEOUT_MS
    assert created.subscription.queue_url is None


def test_a_pull_subscription_gets_its_queues_before_its_record() -> None:
    # Given
    management = Management()
    room = management.room()

    # When
    created = management.subscriptions.create(TENANT, room.id, subscription_request(ackWaitMs=5000))

    # Then
    subscription = created.subscription
    assert created.signing_secret is None
    assert subscription.ack_wait_ms == 5000
    assert management.queues.queues == {subscription.queue_url: 5, subscription.dead_letter_queue_url: 0}


def test_a_room_holds_at_most_the_subscription_limit() -> None:
    # Given
    management = Management()
    room = management.room()
    for _ in range(limits.MAX_SUBSCRIPTIONS_PER_ROOM):
        management.subscription(room, type="PUSH", pushUrl=PUSH_URL)

    # When
    with pytest.raises(LimitExceeded):
        management.subscription(room, type="PUSH", pushUrl=PUSH_URL)

    # Then
    assert management.catalog.count_subscriptions(TENANT, room.id) == limits.MAX_SUBSCRIPTIONS_PER_ROOM


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("169.254.169.254", "link-local"),
        ("10.0.0.1", "private"),
        ("192.168.1.20", "private"),
        ("fd00::1", "private"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
    ],
)
def test_a_push_url_resolving_into_a_private_network_is_refused_and_nothing_is_stored(
    address: str, reason: str
) -> None:
    # Given
    management = Management(addresses=(address,))
    room = management.room()

    # When
    with pytest.raises(InvalidRequest) as refused:
        management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")

    # Then
    assert refused.value.code == "invalid_push_url"
    assert "body.pushurl" in _refusal(refused)
    assert reason in _refusal(refused)
    assert management.catalog.subscriptions == {}


@pytest.mark.parametrize(
    ("push_url", "addresses", "reason"),
    [
        ("https://localhost/hook", ("127.0.0.1",), "loopback"),
        ("https://127.0.0.1/hook", (), "loopback"),
        ("https://[::1]/hook", (), "loopback"),
        ("http://127.0.0.1:8080/hook", (), "https"),
    ],
)
def test_without_local_mode_a_push_url_to_loopback_is_refused(
    push_url: str, addresses: tuple[str, ...], reason: str
) -> None:
    # Given: a deployment's policy (no loopback)
    management = Management(allow_loopback=False, addresses=addresses)
    room = management.room()

    # When
    with pytest.raises(InvalidRequest) as refused:
        management.subscription(room, type="PUSH", pushUrl=push_url)

    # Then
    assert reason in _refusal(refused)
    assert management.catalog.subscriptions == {}


def test_in_local_mode_plain_http_to_loopback_is_accepted() -> None:
    # Given
    management = Management(allow_loopback=True)
    room = management.room()

    # When
    subscription = management.subscription(room, type="PUSH", pushUrl="http://127.0.0.1:8080/hook")

    # Then
    assert subscription.push_url == "http://127.0.0.1:8080/hook"


def test_a_failover_must_be_another_subscription_of_the_same_room() -> None:
    # Given
    management = Management()
    room, other_room = management.room(), management.room(name="other")
    foreign = management.subscription(other_room)
    local = management.subscription(room)

    # When
    with pytest.raises(InvalidRequest) as refused:
        management.subscription(room, failoverSubscriptionId=foreign.id)
    accepted = management.subscription(room, failoverSubscriptionId=local.id)

    # Then
    assert refused.value.code == "invalid_failover"
    assert foreign.id in refused.value.message
    assert accepted.failover_subscription_id == local.id


def test_a_failover_chain_may_not_loop() -> None:
    # Given: second → first
    management = Management()
    room = management.room()
    first = management.subscription(room)
    second = management.subscription(room, failoverSubscriptionId=first.id)

    # When: first → second would close the loop; a subscription cannot be its own failover
    with pytest.raises(InvalidRequest) as looping:
        management.subscriptions.update(
            TENANT, room.id, first.id, _patch(f'{{"failoverSubscriptionId": "{second.id}"}}')
        )
    with pytest.raises(InvalidRequest) as itself:
        management.subscriptions.update(
            TENANT, room.id, first.id, _patch(f'{{"failoverSubscriptionId": "{first.id}"}}')
        )

    # Then
    assert "loop" in looping.value.message
    assert "own failover" in itself.value.message
    assert management.subscriptions.get(TENANT, room.id, first.id).failover_subscription_id is None


def test_a_failover_target_cannot_be_deleted_while_referenced() -> None:
    # Given
    management = Management()
    room = management.room()
    target = management.subscription(room)
    referrer = management.subscription(room, failoverSubscriptionId=target.id)

    # When
    with pytest.raises(Conflict) as refused:
        management.subscriptions.delete(TENANT, room.id, target.id)

    # Then
    assert referrer.id in refused.value.message
    assert management.subscriptions.get(TENANT, room.id, target.id) == target


@pytest.mark.parametrize(
    ("subscription_type", "field", "value"),
    [("PULL", "pushUrl", f'"{PUSH_URL}"'), ("PULL", "timeoutMs", "2000"), ("PUSH", "ackWaitMs", "2000")],
)
def test_a_patch_refuses_fields_of_the_other_type(subscription_type: str, field: str, value: str) -> None:
    # Given
    management = Management()
    room = management.room()
    extra = {"pushUrl": PUSH_URL} if subscription_type == "PUSH" else {}
    subscription = management.subscription(room, type=subscription_type, **extra)

    # When
    with pytest.raises(InvalidRequest) as refused:
        management.subscriptions.update(TENANT, room.id, subscription.id, _patch(f'{{"{field}": {value}}}'))

    # Then
    assert f"{field} does not apply to a {subscription_type} subscription" == refused.value.message
    assert [d["field"] for d in refused.value.details] == [f"body.{field}"]
    assert management.subscriptions.get(TENANT, room.id, subscription.id) == subscription


def test_null_clears_an_override_and_absent_fields_keep_theirs() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, deliveryDelayMs=500, jitter=0.2, retryScheduleMs=[100, 200])

    # When
    updated = management.subscriptions.update(
        TENANT,
        room.id,
        subscription.id,
        _patch('{"deliveryDelayMs": null, "jitter": 0.5, "retryScheduleMs": null}'),
    )

    # Then
    assert updated.overrides.delivery_delay_ms is None
    assert updated.overrides.jitter == 0.5
    assert updated.overrides.retry_schedule_ms is None
    assert updated.updated_at >= subscription.updated_at


def test_a_changed_ack_wait_changes_the_queue_visibility_and_null_restores_the_default() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, ackWaitMs=5000)

    # When
    changed = management.subscriptions.update(TENANT, room.id, subscription.id, _patch('{"ackWaitMs": 9000}'))
    restored = management.subscriptions.update(
        TENANT, room.id, subscription.id, _patch('{"ackWaitMs": null}')
    )

    # Then
    assert changed.ack_wait_ms == 9000
    assert restored.ack_wait_ms == limits.DEFAULT_ACK_WAIT_MS
    assert management.queues.queues[subscription.queue_url or ""] == limits.DEFAULT_ACK_WAIT_MS // 1000


def test_a_patched_push_url_is_checked_like_at_creation() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl=PUSH_URL)
    management.addresses = ("10.0.0.1",)

    # When
    with pytest.raises(InvalidRequest) as refused:
        management.subscriptions.update(
            TENANT, room.id, subscription.id, _patch('{"pushUrl": "https://new.example.com/"}')
        )

    # Then
    assert refused.value.code == "invalid_push_url"
    assert management.subscriptions.get(TENANT, room.id, subscription.id).push_url == PUSH_URL


def test_a_subscription_can_be_disabled_and_enabled() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)

    # When
    disabled = management.subscriptions.update(
        TENANT, room.id, subscription.id, _patch('{"status": "disabled"}')
    )
    enabled = management.subscriptions.update(
        TENANT, room.id, subscription.id, _patch('{"status": "active"}')
    )

    # Then
    assert disabled.status is SubscriptionStatus.DISABLED
    assert enabled.status is SubscriptionStatus.ACTIVE
    assert enabled.type is SubscriptionType.PULL
    assert disabled.disabled_reason == "disabled by an operator"
    assert disabled.disabled_at is not None
    assert (enabled.disabled_reason, enabled.disabled_at) == (None, None)


def test_flow_control_is_set_at_creation_changed_by_patch_and_cleared_by_null() -> None:
    # Given
    management = Management()
    room = management.room()
    created = management.subscription(
        room, type="PUSH", pushUrl=PUSH_URL, maxConcurrency=5, rateLimitPerSecond=2.5
    )

    # When
    changed = management.subscriptions.update(
        TENANT, room.id, created.id, _patch('{"maxConcurrency": 1, "rateLimitPerSecond": null}')
    )

    # Then
    assert (created.max_concurrency, created.rate_limit_per_second) == (5, 2.5)
    assert created.disable_after_failing_ms == limits.DEFAULT_DISABLE_AFTER_FAILING_MS
    assert (changed.max_concurrency, changed.rate_limit_per_second) == (1, None)
    stored = management.subscriptions.get(TENANT, room.id, created.id)
    assert stored.max_concurrency == 1


@pytest.mark.parametrize(
    "field", ['"maxConcurrency": 2', '"rateLimitPerSecond": 1', '"disableAfterFailingMs": 60000']
)
def test_push_only_settings_are_a_400_on_a_pull_subscription_and_change_nothing(field: str) -> None:
    # Given (a PULL create cannot hold them: its model refuses them, tests/unit/test_api_models.py)
    management = Management()
    room = management.room()
    pull = management.subscription(room)

    # When
    with pytest.raises(PushOnly) as on_patch:
        management.subscriptions.update(TENANT, room.id, pull.id, _patch("{" + field + "}"))

    # Then
    assert on_patch.value.http_status == 400
    assert on_patch.value.details[0]["type"] == "push_only"
    assert management.subscriptions.get(TENANT, room.id, pull.id) == pull
    assert len(management.catalog.all_subscriptions(TENANT, room.id)) == 1


def test_a_paused_subscription_is_still_routed_to_a_disabled_one_is_not() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl=PUSH_URL)

    # When
    paused = management.subscriptions.update(TENANT, room.id, subscription.id, _patch('{"status": "paused"}'))

    # Then
    assert paused.status is SubscriptionStatus.PAUSED
    assert paused.status.receives
    assert not SubscriptionStatus.DISABLED.receives


def test_a_failover_chain_longer_than_the_limit_is_refused() -> None:
    # Given: a chain of as many subscriptions as a failover's chain may have
    management = Management()
    room = management.room()
    head = management.subscription(room)
    for _ in range(limits.MAX_FAILOVER_CHAIN_LENGTH - 1):
        head = management.subscription(room, failoverSubscriptionId=head.id)

    # When: one in front of it is fine, one more in front of that makes its failover's chain too long
    in_front = management.subscription(room, failoverSubscriptionId=head.id)
    with pytest.raises(InvalidRequest) as refused:
        management.subscription(room, failoverSubscriptionId=in_front.id)

    # Then
    assert in_front.failover_subscription_id == head.id
    assert refused.value.code == "invalid_failover"
    assert f"longer than {limits.MAX_FAILOVER_CHAIN_LENGTH}" in refused.value.message


def test_a_new_failover_is_not_stored_when_its_chain_changed_after_the_check() -> None:
    # Given: first → (none); while a PATCH of second → first checks the chain, first → second lands
    management = Management()
    room = management.room()
    first, second = management.subscription(room), management.subscription(room)
    catalog = management.catalog
    read = catalog.get_subscription

    def read_while_another_patch_lands(tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        seen = read(tenant_id, room_id, subscription_id)
        if subscription_id == first.id:
            key = (TENANT, room.id, first.id)
            catalog.subscriptions[key] = replace(
                catalog.subscriptions[key], failover_subscription_id=second.id
            )
        return seen

    catalog.get_subscription = read_while_another_patch_lands  # type: ignore[method-assign]

    # When
    with pytest.raises(Conflict) as refused:
        management.subscriptions.update(
            TENANT, room.id, second.id, _patch(f'{{"failoverSubscriptionId": "{first.id}"}}')
        )

    # Then: 409, and no loop is stored
    assert "changed" in refused.value.message
    assert read(TENANT, room.id, second.id).failover_subscription_id is None


def test_the_limit_holds_at_the_write_even_when_the_count_was_read_short() -> None:
    # Given: a full room whose count a create read before the last place was taken
    management = Management()
    room = management.room()
    for _ in range(limits.MAX_SUBSCRIPTIONS_PER_ROOM):
        management.subscription(room, type="PUSH", pushUrl=PUSH_URL)
    management.catalog.count_subscriptions = lambda tenant_id, room_id: 0  # type: ignore[method-assign]

    # When
    with pytest.raises(LimitExceeded):
        management.subscription(room, type="PUSH", pushUrl=PUSH_URL)

    # Then
    assert len(management.catalog.all_subscriptions(TENANT, room.id)) == limits.MAX_SUBSCRIPTIONS_PER_ROOM


class SweepCheckingSender(FakeSender):
    """The outbox queue: a late sweep must be sent while the subscription still exists (so that a
    crash in the deletion cannot skip it), the immediate one after it is gone."""

    def __init__(self, management: Management) -> None:
        super().__init__()
        self.management = management

    def send(self, outgoing: Sequence[Outgoing]) -> None:
        for item in outgoing:
            sweep = task_from_json(str(item.envelope))
            assert isinstance(sweep, Sweep)
            ((subscription_id, _),) = sweep.subscriptions
            present = (TENANT, sweep.room_id, subscription_id) in self.management.catalog.subscriptions
            assert present == (item.delay_seconds > 0)
        super().send(outgoing)


def test_deleting_a_subscription_sweeps_what_it_owes_late_before_and_at_once_after() -> None:
    # Given
    management = Management()
    management.outbox_sender = SweepCheckingSender(management)
    room = management.room()
    pull = management.subscription(room)

    # When
    management.subscriptions.delete(TENANT, room.id, pull.id)

    # Then
    (late, late_delay), (now, now_delay) = management.outbox_tasks()
    assert late == now == Sweep(TENANT, room.id, ((pull.id, SubscriptionType.PULL),), SUBSCRIPTION_DELETED)
    assert (late_delay, now_delay) == (SETTLE_SECONDS, 0)


# -- filter policies (issue 26) -------------------------------------------------------------------

BIG_ORDERS = {"amount": [{"numeric": [">=", 100]}]}


@pytest.mark.parametrize("subscription_type", ["PUSH", "PULL"])
def test_a_filter_policy_is_kept_at_creation(subscription_type: str) -> None:
    # Given
    management = Management()
    room = management.room()

    # When
    push = {"pushUrl": PUSH_URL} if subscription_type == "PUSH" else {}
    subscription = management.subscription(room, type=subscription_type, filterPolicy=BIG_ORDERS, **push)

    # Then
    assert subscription.filter_policy is not None
    assert subscription.filter_policy.rules == BIG_ORDERS
    assert management.catalog.get_subscription(TENANT, room.id, subscription.id) == subscription


@pytest.mark.parametrize(
    ("policy", "field", "rule"),
    [
        ({"a": [1], "b": [1], "c": [1], "d": [1], "e": [1], "f": [1]}, "body.filterPolicy", "at most 5 keys"),
        ({"amount": [{"numeric": [">", "x"]}]}, "body.filterPolicy.amount[0].numeric", "finite number"),
        ({"a": [{"between": 1}]}, "body.filterPolicy.a[0]", "unknown operator 'between'"),
        ({"a": list(range(151))}, "body.filterPolicy", "151 combinations"),
    ],
)
def test_an_invalid_filter_policy_is_refused_naming_the_rule_and_where_and_nothing_is_made(
    policy: dict[str, object], field: str, rule: str
) -> None:
    # Given
    management = Management()
    room = management.room()

    # When
    with pytest.raises(InvalidRequest) as refused:
        management.subscription(room, filterPolicy=policy)

    # Then
    assert refused.value.code == "invalid_filter_policy"
    assert refused.value.http_status == 400
    assert [d["field"] for d in refused.value.details] == [field]
    assert rule in refused.value.details[0]["problem"]
    assert management.catalog.count_subscriptions(TENANT, room.id) == 0
    assert management.queues.queues == {}


def test_a_patch_sets_a_filter_policy_null_removes_it_and_an_invalid_one_changes_nothing() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)

    # When
    filtered = management.subscriptions.update(
        TENANT, room.id, subscription.id, _patch('{"filterPolicy": {"region": [{"prefix": "eu-"}]}}')
    )
    with pytest.raises(InvalidRequest) as refused:
        management.subscriptions.update(
            TENANT,
            room.id,
            subscription.id,
            _patch('{"filterPolicy": {"region": []}, "deliveryAttempts": 2}'),
        )
    kept = management.catalog.get_subscription(TENANT, room.id, subscription.id)
    untouched = management.subscriptions.update(
        TENANT, room.id, subscription.id, _patch('{"deliveryAttempts": 4}')
    )
    removed = management.subscriptions.update(
        TENANT, room.id, subscription.id, _patch('{"filterPolicy": null}')
    )

    # Then
    assert filtered.filter_policy is not None
    assert filtered.filter_policy.rules == {"region": [{"prefix": "eu-"}]}
    assert refused.value.details[0]["field"] == "body.filterPolicy.region"
    assert kept == filtered
    assert untouched.filter_policy == filtered.filter_policy
    assert removed.filter_policy is None
