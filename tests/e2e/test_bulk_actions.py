"""Bulk actions end to end: retry-now shortens an hour's backoff to now, Clear All leaves nothing
to deliver (envelopes already in SQS included), dead letters are replayed by the time they died;
bad input is a JSON 4xx that changes nothing, and another tenant's subscription is 404."""

from __future__ import annotations

from typing import Any

from roomcast_dev.stack import LocalStack
from roomcast_dev.webhook_receiver import Reply, WebhookReceiver, always, fail_first
from tests.e2e.conftest import ApiClient, assert_error, wait_until
from tests.e2e.delivery_log import log_events
from tests.e2e.test_publish_and_pull import publish

TIMEOUT_SECONDS = 30.0


def _delivery(client: ApiClient, room_id: str, message_id: str) -> dict[str, Any]:
    response = client.get(f"/rooms/{room_id}/messages/{message_id}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()["deliveries"][0]
    return found


def test_retry_now_shortens_an_hours_backoff(tenant_a: ApiClient) -> None:
    # Given: a first attempt failed and the next is an hour away
    with WebhookReceiver(fail_first(1, status=503)) as server:
        room = tenant_a.create_room(deliveryDelayMs=3_600_000)
        subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
        message = publish(tenant_a, room["id"])
        wait_until(
            lambda: _delivery(tenant_a, room["id"], message["messageId"])["status"] == "retrying", "retrying"
        )

        # When: every retrying delivery, by a job
        response = tenant_a.post(f"/rooms/{room['id']}/subscriptions/{subscription['id']}/deliveries/retry")

        # Then: the second attempt comes now, as attempt 1
        assert response.status_code == 202, response.text
        assert response.headers["Location"] == f"/jobs/{response.json()['id']}"
        job = tenant_a.finished_job(response)
        assert (job["kind"], job["state"], job["counts"]["retried"]) == ("retry-deliveries", "succeeded", 1)
        [_, second] = server.wait_for_requests(2, TIMEOUT_SECONDS)
        assert second.json["attempt"] == 1
        delivered = wait_until(
            lambda: (
                (d := _delivery(tenant_a, room["id"], message["messageId"]))["status"] == "delivered" and d
            ),
            "delivered",
        )
        assert delivered["attempts"] == 2


def test_clear_all_leaves_nothing_to_deliver_and_later_messages_go_out(
    empty_stack: LocalStack, tenant_a: ApiClient
) -> None:
    # Given: three messages waiting for a paused subscription (their envelopes are in SQS)
    with WebhookReceiver(always()) as server:
        room = tenant_a.create_room()
        subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
        path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
        tenant_a.patch(path, {"status": "paused"})
        waiting = [publish(tenant_a, room["id"])["messageId"] for _ in range(3)]

        # When: cleared, then resumed
        cleared = tenant_a.finished_job(tenant_a.delete(f"{path}/deliveries"))
        again = tenant_a.finished_job(tenant_a.delete(f"{path}/deliveries"))
        tenant_a.patch(path, {"status": "active"})

        # Then: all three ended cleared, by the job or, for an envelope that came out of SQS before
        # the job reached its record, by the push function (the watermark drops it); each envelope
        # the job got to first is dropped when it comes out all the same: sending nothing
        assert (cleared["kind"], cleared["state"]) == ("clear-deliveries", "succeeded")
        assert cleared["counts"]["cleared"] <= 3
        assert again["counts"]["cleared"] == 0
        assert {_delivery(tenant_a, room["id"], m)["status"] for m in waiting} == {"cleared"}
        ended_twice = cleared["counts"]["cleared"]  # ended by the job, then dropped by push
        wait_until(
            lambda: len(log_events(empty_stack, "cleared", subscription["id"])) >= 3 + ended_twice,
            "dropped by push",
        )
        assert server.requests == []
        # and a message published afterwards is delivered
        later = publish(tenant_a, room["id"])
        [request] = server.wait_for_requests(1, TIMEOUT_SECONDS)
        assert request.json["messageId"] == later["messageId"]


def test_dead_letters_are_replayed_by_the_time_they_died(tenant_a: ApiClient) -> None:
    # Given: two dead letters, a moment apart
    with WebhookReceiver(fail_first(2, status=400)) as server:
        room = tenant_a.create_room()
        subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
        letters = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters"
        first = publish(tenant_a, room["id"])["messageId"]
        wait_until(lambda: _delivery(tenant_a, room["id"], first)["status"] == "dead", "first dead")
        second = publish(tenant_a, room["id"])["messageId"]
        wait_until(lambda: _delivery(tenant_a, room["id"], second)["status"] == "dead", "second dead")
        dead_at = {d["messageId"]: d["deadAt"] for d in tenant_a.get(letters).json()["deadLetters"]}

        # When: only those that died from the second one's death on
        job = tenant_a.finished_job(tenant_a.post(f"{letters}/replay", {"since": dead_at[second]}))

        # Then
        assert (job["kind"], job["state"]) == ("replay-dead-letters", "succeeded")
        assert (job["counts"]["replayed"], job["counts"]["examined"]) == (1, 2)
        [_, _, replayed] = server.wait_for_requests(3, TIMEOUT_SECONDS)
        assert (replayed.json["messageId"], replayed.json["attempt"]) == (second, 0)
        assert [d["messageId"] for d in tenant_a.get(letters).json()["deadLetters"]] == [first]


def test_bulk_actions_refuse_bad_input_other_tenants_and_pull_retries(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    with WebhookReceiver(always(Reply(200))) as server:
        room = tenant_a.create_room()
        push = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
        pull = tenant_a.create_subscription(room["id"])
        base = f"/rooms/{room['id']}/subscriptions"

        # Then: bad bodies are a 422 naming the problem
        retry_bodies: list[dict[str, Any]] = [{"messageIds": []}, {"messageIds": "msg_1"}, {"other": 1}]
        for body in retry_bodies:
            assert_error(tenant_a.post(f"{base}/{push['id']}/deliveries/retry", body), 422)
        replay_bodies: list[dict[str, Any]] = [
            {"messageIds": ["msg_1"], "since": "2026-11-22T10:00:00Z"},
            {"since": "2026-11-23T10:00:00Z", "until": "2026-11-22T10:00:00Z"},
            {"since": "yesterday"},
        ]
        for body in replay_bodies:
            assert_error(tenant_a.post(f"{base}/{push['id']}/dead-letters/replay", body), 422)
        # and a PULL subscription's retries are its consumer's business
        assert_error(tenant_a.post(f"{base}/{pull['id']}/deliveries/retry"), 409, "PUSH")
        assert_error(
            tenant_a.post(f"{base}/{pull['id']}/deliveries/retry", {"messageIds": ["msg_1"]}), 409, "PUSH"
        )
        # and another tenant finds nothing, changes nothing
        assert_error(tenant_b.post(f"{base}/{push['id']}/deliveries/retry"), 404)
        assert_error(tenant_b.delete(f"{base}/{push['id']}/deliveries"), 404)
        assert_error(
            tenant_b.post(f"{base}/{push['id']}/dead-letters/replay", {"since": "2026-11-22T10:00:00Z"}), 404
        )
        assert tenant_a.get(f"{base}/{push['id']}").json()["updatedAt"] == push["updatedAt"]
