"""bench/harness.py's waits in sequence: the calls a caller waited for one after another."""

from __future__ import annotations

from collections import Counter

from bench.harness import describe_waits, waits_in_sequence


def test_calls_sent_at_once_are_one_wait_and_calls_after_them_the_next() -> None:
    calls = [
        ((0.0, 1.0), "GetItem"),
        ((0.1, 0.9), "GetItem"),
        ((1.0, 2.0), "UpdateItem"),  # starts as the reads end: a wait of its own
        ((1.2, 2.5), "UpdateItem"),
        ((2.1, 2.4), "UpdateItem"),  # started while the other writes were in flight
        ((3.0, 3.5), "DeleteMessageBatch"),
    ]

    waits = waits_in_sequence(calls)

    assert waits == [Counter(GetItem=2), Counter(UpdateItem=3), Counter(DeleteMessageBatch=1)]
    assert describe_waits(waits) == "GetItem x2 -> UpdateItem x3 -> DeleteMessageBatch"


def test_order_of_the_record_does_not_matter_only_the_times() -> None:
    calls = [((5.0, 6.0), "PutRecordBatch"), ((0.0, 1.0), "ReceiveMessage"), ((0.5, 0.7), "GetItem")]

    assert describe_waits(waits_in_sequence(calls)) == "GetItem + ReceiveMessage -> PutRecordBatch"


def test_no_calls_no_waits() -> None:
    assert waits_in_sequence([]) == []
