"""An ordering key's numbers in DynamoDB (moto server), as roomcast.ordering.numbers takes them: a
few keys one ADD each, many keys in one transaction on their counters as read; either way each
key's numbers run on from the last taken, and publishes racing on the same keys never share one
(a counter moved between the read and the transaction sends the keys back to their ADDs)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import boto3

from roomcast.ordering.numbers import TOGETHER_FROM_KEYS, KeyNumbers
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler


def _numbers(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> KeyNumbers:
    function_handler("PublishFunction")  # the publish function's environment: table, endpoint
    table = stack_model.functions["PublishFunction"].environment["TABLE_NAME"]
    return KeyNumbers(table, boto3.client("dynamodb"))


def _taken(last: Mapping[str, int], counts: Mapping[str, int]) -> set[tuple[str, int]]:
    """Every (key, number) a take handed out."""
    return {(key, n) for key, count in counts.items() for n in range(last[key] - count + 1, last[key] + 1)}


def test_many_keys_run_on_from_the_numbers_one_key_at_a_time_took(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    numbers = _numbers(stack_model, function_handler)
    few = {"a": 2}  # below TOGETHER_FROM_KEYS: an ADD
    assert numbers.take_ordering_numbers("acme", "room_1", few) == {"a": 2}
    many = {"a": 3, "b": 1, **{f"k{n}": 1 for n in range(TOGETHER_FROM_KEYS + 40)}}
    last = numbers.take_ordering_numbers("acme", "room_1", many)
    assert (last["a"], last["b"]) == (5, 1)
    assert all(last[f"k{n}"] == 1 for n in range(TOGETHER_FROM_KEYS + 40))
    # and the ADDs run on from the transaction's
    assert numbers.take_ordering_numbers("acme", "room_1", {"b": 1}) == {"b": 2}
    # another room's keys are its own
    assert numbers.take_ordering_numbers("acme", "room_2", many)["a"] == 3


class _StaleReads(KeyNumbers):
    """Reads the counters, then lets another publish move one before the transaction runs."""

    def __init__(self, inner: KeyNumbers, meddle: Callable[[], object]) -> None:
        super().__init__(inner._table_name, inner._explicit_client)
        self._meddle = meddle

    def _read_counters(self, tenant_id: str, room_id: str, keys: Sequence[str]) -> dict[str, int]:
        read = super()._read_counters(tenant_id, room_id, keys)
        self._meddle()
        return read


def test_a_counter_moved_after_the_read_sends_the_keys_to_their_adds(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    numbers = _numbers(stack_model, function_handler)
    numbers.take_ordering_numbers("acme", "room_1", {"x": 1, "y": 1, "z": 1})
    moved = numbers.take_ordering_numbers
    stale = _StaleReads(numbers, lambda: moved("acme", "room_1", {"y": 4}))
    last = stale.take_ordering_numbers("acme", "room_1", {"x": 1, "y": 1, "z": 2})
    # y: 1 taken, 2..5 by the meddler, so 6 (never a number the meddler took); nothing lost on x, z
    assert last == {"x": 2, "y": 6, "z": 3}


def test_publishes_racing_on_the_same_keys_never_share_a_number(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    numbers = [_numbers(stack_model, function_handler) for _ in range(6)]
    keys = [f"k{n}" for n in range(8)]
    # each racer takes numbers of most keys, some in one transaction, some one by one
    asks = [{k: 1 + (i + j) % 3 for j, k in enumerate(keys) if (i + j) % 4} for i in range(6)]
    asks[5] = {"k0": 2}
    barrier = threading.Barrier(6)

    def take(index: int) -> set[tuple[str, int]]:
        barrier.wait()
        taken: set[tuple[str, int]] = set()
        for _ in range(3):
            taken |= _taken(numbers[index].take_ordering_numbers("acme", "room_1", asks[index]), asks[index])
        return taken

    with ThreadPoolExecutor(6) as pool:
        handed = list(pool.map(take, range(6)))
    everything = [pair for one in handed for pair in one]
    assert len(everything) == len(set(everything)) == sum(3 * sum(a.values()) for a in asks)
    for key in keys:  # no gaps either: every take went through
        got = sorted(n for k, n in everything if k == key)
        assert got == list(range(1, len(got) + 1))
