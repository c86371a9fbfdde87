"""The soak's ordering-key check on made-up ledgers: it finds a key's message that reached the
subscriber before an earlier one, or before the earlier one was answered, and nothing else."""

from __future__ import annotations

from tests.soak.ledger import Destination, Handout, Publish, WebhookRequest
from tests.soak.ordering_check import order_figures

PUSH = Destination("sub_push", "room_1", "ordered-flaky", "PUSH", 2, False, False, ordered=True)


def _publish(number: int, at: float, key: str = "key-0") -> Publish:
    publish = Publish(number, "room_1", f"c{number}", f"i{number}", message_id=f"m{number}")
    publish.destinations, publish.published_at, publish.ordering_key = ("sub_push",), at, key
    return publish


def _request(message_id: str, at: float, status: int = 200) -> WebhookRequest:
    return WebhookRequest("sub_push", message_id, 0, at, status, in_time=True, signature_ok=True)


def test_a_key_answered_in_turn_passes() -> None:
    publishes = [_publish(0, 1.0), _publish(1, 2.0)]
    requests = [_request("m0", 3.0, 500), _request("m0", 4.0), _request("m1", 4.5)]
    figures = order_figures({"sub_push": PUSH}, publishes, requests, [], [])
    assert (figures.keys, figures.messages, figures.problems) == (1, 2, [])


def test_a_later_message_first_or_before_the_earlier_was_answered_is_a_problem() -> None:
    publishes = [_publish(0, 1.0), _publish(1, 2.0)]
    out_of_order = order_figures(
        {"sub_push": PUSH}, publishes, [_request("m1", 3.0), _request("m0", 4.0)], [], []
    )
    overlapping = order_figures(
        {"sub_push": PUSH},
        publishes,
        [_request("m0", 3.0, 500), _request("m1", 3.5), _request("m0", 4.0)],
        [],
        [],
    )
    assert len(out_of_order.problems) == 1
    assert "m1 (#1) reached the subscriber before m0 (#0)" in out_of_order.problems[0]
    assert len(overlapping.problems) == 1
    assert "before m0 (#0) was answered" in overlapping.problems[0]


def test_other_keys_and_unordered_subscriptions_are_not_ordered() -> None:
    unordered = Destination("sub_push", "room_1", "plain", "PUSH", 2, False, False)
    publishes = [_publish(0, 1.0, "key-0"), _publish(1, 2.0, "key-1")]
    requests = [_request("m1", 3.0), _request("m0", 4.0)]
    assert order_figures({"sub_push": PUSH}, publishes, requests, [], []).problems == []
    assert order_figures({"sub_push": unordered}, publishes, requests, [], []).keys == 0
    handout = Handout("sub_push", "m0", 0, 3.0, "ack")
    assert order_figures({"sub_push": PUSH}, publishes[:1], [], [handout], []).messages == 1
