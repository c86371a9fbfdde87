"""Ordering keys in DynamoDB (moto server): a key's head and line as roomcast.ordering.store
writes them, stepped by roomcast.ordering.steps — one message in flight, in publish order;
a dead one pauses the key, which is listed with its reason and resumed with or without it; keys
and subscriptions never hold each other up; racing steps claim a key once."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3

from roomcast.catalog.model import OnDeadKey
from roomcast.messages.model import DeliveryStatus
from roomcast.ordering.heads import key_partition
from roomcast.ordering.model import Arrived, Ended, KeyPlan, KeyRef, KeyState, Resumed
from roomcast.ordering.steps import KeySteps
from roomcast.ordering.store import OrderingKeys, waiting_sort_key
from roomcast.platform import items
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler

NOW_MS = 1_795_435_200_000
KEY = KeyRef("acme", "room_1", "sub_1", "order-1")


def _keys(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> OrderingKeys:
    function_handler("OutboxFunction")  # the outbox function's environment: table, endpoint
    table = stack_model.functions["OutboxFunction"].environment["TABLE_NAME"]
    return OrderingKeys(table, boto3.client("dynamodb"))


def _sends(steps: KeySteps, *step: Any) -> str | None:
    """The message a key's step sends now, if any."""
    return steps.step(*step).sends


def _publish(keys: OrderingKeys, ref: KeyRef, number: int) -> str:
    """A message's place in the key's line, as the publish transaction writes it."""
    message_id = f"msg_{number:032x}"
    place = {
        "PK": key_partition(ref),
        "SK": waiting_sort_key(NOW_MS + number, message_id),
        "messageId": message_id,
        "publishedAtMs": NOW_MS + number,
    }
    boto3.client("dynamodb").put_item(TableName=os.environ["TABLE_NAME"], Item=items.to_attributes(place))
    return message_id


def test_a_key_hands_out_its_messages_one_at_a_time_in_publish_order(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    keys = _keys(stack_model, function_handler)
    steps = KeySteps(keys)
    m0, m1, m2 = (_publish(keys, KEY, n) for n in range(3))
    # the stream reads the insertions in any order: the oldest goes first, once
    assert _sends(steps, KEY, Arrived(m2), OnDeadKey.PAUSE, NOW_MS) == m0
    assert _sends(steps, KEY, Arrived(m0), OnDeadKey.PAUSE, NOW_MS) is None
    assert _sends(steps, KEY, Arrived(m1), OnDeadKey.PAUSE, NOW_MS) is None
    # the trigger that claimed it, seen again (a crash before its send), sends it again
    assert _sends(steps, KEY, Arrived(m2), OnDeadKey.PAUSE, NOW_MS) == m0
    # each ending hands the next one out
    assert _sends(steps, KEY, Ended(m0, DeliveryStatus.DELIVERED), OnDeadKey.PAUSE, NOW_MS, NOW_MS) == m1
    assert _sends(steps, KEY, Ended(m1, DeliveryStatus.EXPIRED), OnDeadKey.PAUSE, NOW_MS, NOW_MS + 1) == m2
    assert (
        _sends(steps, KEY, Ended(m2, DeliveryStatus.DELIVERED), OnDeadKey.PAUSE, NOW_MS, NOW_MS + 2) is None
    )
    # and the idle key is left to expire, with nothing in its line
    line = keys.read(KEY)
    assert line.head is not None
    assert (line.head.in_flight, line.waiting) == (None, ())


def test_a_dead_message_pauses_its_key_which_is_listed_and_resumed_with_or_without_it(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    keys = _keys(stack_model, function_handler)
    steps = KeySteps(keys)
    other = KeyRef("acme", "room_1", "sub_1", "order-2")
    m0, m1, m2 = (_publish(keys, KEY, n) for n in range(3))
    o0 = _publish(keys, other, 10)
    assert _sends(steps, KEY, Arrived(m0), OnDeadKey.PAUSE, NOW_MS) == m0
    # When its message ends dead, the key pauses: nothing more is handed out
    dead = Ended(m0, DeliveryStatus.DEAD, "HTTP 500 after 5 attempts")
    assert _sends(steps, KEY, dead, OnDeadKey.PAUSE, NOW_MS + 5, NOW_MS) is None
    assert _sends(steps, KEY, Arrived(m1), OnDeadKey.PAUSE, NOW_MS + 6) is None
    # while another key of the subscription flows
    assert _sends(steps, other, Arrived(o0), OnDeadKey.PAUSE, NOW_MS + 6) == o0
    # Then the subscription's paused keys list it, with the reason and the dead message
    (paused,) = keys.paused_keys("acme", "sub_1", 50)
    assert (paused.ref.ordering_key, paused.state, paused.dead_message_id) == ("order-1", KeyState.PAUSED, m0)
    assert paused.paused_reason == "HTTP 500 after 5 attempts"
    assert paused.paused_at_ms == NOW_MS + 5
    assert keys.paused_keys("acme", "sub_2", 50) == []
    # A resume without skipping sends the dead message again first
    assert _sends(steps, KEY, Resumed(skip=False, at_ms=NOW_MS + 7), OnDeadKey.PAUSE, NOW_MS + 7) == m0
    assert keys.paused_keys("acme", "sub_1", 50) == []
    # it dies again; a resume skipping it hands out the next
    assert _sends(steps, KEY, dead, OnDeadKey.PAUSE, NOW_MS + 8, NOW_MS) is None
    assert _sends(steps, KEY, Resumed(skip=True, at_ms=NOW_MS + 9), OnDeadKey.PAUSE, NOW_MS + 9) == m1
    assert keys.read(KEY).waiting_ids == [m1, m2]
    # and with onDeadKey skip a dead message hands the next out at once
    assert (
        _sends(steps, KEY, Ended(m1, DeliveryStatus.DEAD, "HTTP 500"), OnDeadKey.SKIP, NOW_MS, NOW_MS + 1)
        == m2
    )


def test_a_waiting_message_cleared_deep_in_line_leaves_it(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    keys = _keys(stack_model, function_handler)
    steps = KeySteps(keys)
    line = [_publish(keys, KEY, n) for n in range(6)]
    assert _sends(steps, KEY, Arrived(line[0]), OnDeadKey.PAUSE, NOW_MS) == line[0]
    # Clear All ends a message beyond what one read sees: its place comes from its number
    assert (
        _sends(steps, KEY, Ended(line[5], DeliveryStatus.CLEARED), OnDeadKey.PAUSE, NOW_MS, NOW_MS + 5)
        is None
    )
    assert (
        _sends(steps, KEY, Ended(line[0], DeliveryStatus.DELIVERED), OnDeadKey.PAUSE, NOW_MS, NOW_MS)
        == line[1]
    )
    assert [m for m, _ in keys.read(KEY, lookahead=10).waiting] == line[1:5]


def test_racing_steps_claim_a_free_key_once(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: twelve arrivals of one key read by twelve stream readers at once
    keys = [_keys(stack_model, function_handler) for _ in range(12)]
    messages = [_publish(keys[0], KEY, n) for n in range(12)]
    barrier = threading.Barrier(12)

    def arrive(index: int) -> str | None:
        barrier.wait()
        return _sends(KeySteps(keys[index]), KEY, Arrived(messages[index]), OnDeadKey.PAUSE, NOW_MS)

    with ThreadPoolExecutor(12) as pool:
        sent = [m for m in pool.map(arrive, range(12)) if m is not None]
    # Then exactly one sends, and it sends the oldest
    assert sent == [messages[0]]


def test_a_step_writes_only_on_the_head_it_read_even_when_it_looks_the_same_again(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    keys = _keys(stack_model, function_handler)
    assert keys.change_head(KEY, KeyPlan(claim="m0"), "arrived:m0", NOW_MS, None)
    stale = keys.read(KEY).head
    assert stale is not None
    assert stale.in_flight == "m0"
    # Given: the key moved on and back to m0 (released, then m0 replayed) after that read
    assert keys.change_head(KEY, KeyPlan(release="m0", claim="m1"), "ended:m0", NOW_MS, stale)
    moved = keys.read(KEY).head
    assert keys.change_head(KEY, KeyPlan(release="m1", replay="m0"), "resumed:1", NOW_MS, moved)
    again = keys.read(KEY).head
    assert again is not None
    assert (again.in_flight, again.claimed_by) == ("m0", "resumed:1")
    # Then a step planned on the first read changes nothing, though m0 is in flight again
    assert not keys.change_head(KEY, KeyPlan(release="m0"), "ended:m0", NOW_MS, stale)
    assert keys.read(KEY).head == again
    # and the absent head a step read is gone once another step wrote one
    assert not keys.change_head(KEY, KeyPlan(claim="m2"), "arrived:m2", NOW_MS, None)


def test_a_head_written_before_revisions_is_moved_on_its_old_conditions(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    keys = _keys(stack_model, function_handler)
    old_head = {
        "PK": key_partition(KEY),
        "SK": "HEAD",
        "tenantId": KEY.tenant_id,
        "roomId": KEY.room_id,
        "subscriptionId": KEY.subscription_id,
        "orderingKey": KEY.ordering_key,
        "state": "flowing",
        "inFlight": "m0",
        "claimedBy": "arrived:m0",
    }
    boto3.client("dynamodb").put_item(TableName=os.environ["TABLE_NAME"], Item=items.to_attributes(old_head))
    read = keys.read(KEY).head
    assert read is not None
    assert read.revision is None
    # (whether a message waits behind it is unknown: its ending must read the line)
    assert not keys.release_alone(KEY, "m0", NOW_MS)
    assert not keys.change_head(KEY, KeyPlan(release="m9"), "ended:m9", NOW_MS, read)  # not held
    assert keys.change_head(KEY, KeyPlan(release="m0"), "ended:m0", NOW_MS, read)
    after = keys.read(KEY).head
    assert after is not None
    assert after.in_flight is None
    assert after.revision is not None


def test_a_key_is_released_without_a_read_only_when_nothing_is_queued_behind_its_message(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    keys = _keys(stack_model, function_handler)
    assert keys.change_head(KEY, KeyPlan(claim="m0"), "arrived:m0", NOW_MS, None)
    assert not keys.release_alone(KEY, "m9", NOW_MS)  # not the message held
    held = keys.read(KEY).head
    # Given: a message marked queued behind m0
    assert keys.change_head(KEY, KeyPlan(queued=True), "arrived:m1", NOW_MS, held)
    queued = keys.read(KEY).head
    assert queued is not None
    assert (queued.in_flight, queued.claimed_by, queued.queued) == ("m0", "arrived:m0", True)
    # Then m0's ending must read the line (which hands the key to m1)
    assert not keys.release_alone(KEY, "m0", NOW_MS)
    assert keys.change_head(KEY, KeyPlan(release="m0", claim="m1", queued=False), "ended:m0", NOW_MS, queued)
    # and m1's, with nothing queued behind it, releases it without one
    assert keys.release_alone(KEY, "m1", NOW_MS)
    free = keys.read(KEY).head
    assert free is not None
    assert (free.in_flight, free.queued, free.paused) == (None, False, False)
    # a paused key is never released so
    assert keys.change_head(KEY, KeyPlan(claim="m2"), "arrived:m2", NOW_MS, free)
    claimed = keys.read(KEY).head
    assert keys.change_head(
        KEY, KeyPlan(release="m2", pause="m2", reason="dead"), "ended:m2", NOW_MS, claimed
    )
    assert not keys.release_alone(KEY, "m2", NOW_MS)
    paused = keys.read(KEY).head
    assert paused is not None
    assert paused.paused
