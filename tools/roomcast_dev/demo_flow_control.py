"""``make demo``'s last part, flow control: a second room whose PUSH subscription is limited to one
request per second; three messages published at once arrive a second apart, each as its first
attempt."""

from __future__ import annotations

import itertools
import time

from roomcast_dev.demo_client import calling
from roomcast_dev.demo_scenario import Scenario
from roomcast_dev.demo_timeline import seconds
from roomcast_dev.webhook_receiver import WebhookReceiver

THROTTLED_MESSAGES = 3
# How much earlier than its slot on the limit's schedule a request may arrive (network jitter).
SCHEDULE_TOLERANCE_SECONDS = 0.1


def show_flow_control(scenario: Scenario) -> int:
    """0 when the throttled requests started one a second, as first attempts. The room it makes
    is recorded on ``scenario`` for its cleanup."""
    client, say = scenario.client, scenario.timeline.say
    say()
    say("Flow control: a subscription limited to rateLimitPerSecond 1")
    with calling(client, "POST", "/rooms"):
        room = client.rooms.create(name="demo-throttled")
    scenario.throttled_room_id = room.id
    with WebhookReceiver(clock=time.time) as receiver:
        with calling(client, "POST", f"/rooms/{room.id}/subscriptions"):
            client.subscriptions.create(
                room.id, type="PUSH", push_url=receiver.url("/throttled"), rate_limit_per_second=1
            )
        started = time.time()
        for n in range(THROTTLED_MESSAGES):
            with calling(client, "POST", f"/rooms/{room.id}/messages"):
                client.messages.publish(room.id, {"orderId": 2000 + n}, event_type="order.created")
        say(f"  published {THROTTLED_MESSAGES} messages at once")
        try:
            received = receiver.wait_for_requests(
                THROTTLED_MESSAGES, max(1.0, scenario.deadline - time.time())
            )
        except AssertionError as error:
            say(f"\nDEMO FAILED: {error}")
            return 1
    arrivals = [r.arrived_at for r in received]
    for request in received:
        order, attempt = request.json["payload"]["orderId"], request.json["attempt"]
        say(f"  at {request.arrived_at - started:5.2f} s: webhook order {order}, attempt {attempt}")
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    spacing = ", ".join(seconds(g) for g in gaps)
    say(f"  gaps between requests: {spacing} (the limit starts one request per second)")
    # The limit promises start times one second apart on its schedule, the first no earlier than
    # the publish: the n-th (from 0) starts n s after it at the earliest. Counted from the publish,
    # not from the first arrival: a first request that left late (a busy worker) would narrow the
    # next gap without the limit being broken.
    behind = [i - (arrival - started) for i, arrival in enumerate(arrivals)]
    if max(behind) > SCHEDULE_TOLERANCE_SECONDS or any(r.json["attempt"] != 0 for r in received):
        say("\nDEMO FAILED: the throttled requests did not start one a second, as first attempts.")
        return 1
    return 0
