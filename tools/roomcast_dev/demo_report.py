"""What ``make demo`` prints around its timeline: the introduction, the PUSH subscription's retry
schedule, and the summary that sets the waits it saw beside the policy."""

from __future__ import annotations

import textwrap

from roomcast_client import SchedulePreview
from roomcast_dev.demo_scenario import Scenario
from roomcast_dev.demo_timeline import Timeline, seconds
from roomcast_dev.demo_webhook import WebhookCall

HEADER = """\
roomcast demo: one message, two subscribers, exponential backoff
================================================================
Local stack: {api_url}

This script plays every part itself:
  * a publisher: it creates a room and publishes one message to it;
  * a webhook receiver behind a PUSH subscription, a small HTTP server at
      {webhook_url}
    It checks each request's signature (Standard Webhooks) and answers 500, then
    503 with Retry-After: 2, then 500: only the 4th try gets 200. roomcast keeps
    retrying, waiting longer each time (exponential backoff);
  * a PULL consumer: it pulls the message, nacks it once ("can't handle it now"),
    pulls it again when it comes back after the backoff, and acks it.
Room policy: first retry after 1 s, each next wait 2x longer, at most 5 retries;
messages expire 60 s after publish.
"""
# The webhook calls a successful run sees: (attempt, status), each once.
EXPECTED_WEBHOOK_CALLS = [(0, 500), (1, 503), (2, 500), (3, 200)]


def print_schedule(timeline: Timeline, preview: SchedulePreview) -> None:
    timeline.say(
        f"Retry schedule of the PUSH subscription (GET …/subscriptions/{preview.subscription_id}/schedule):"
    )
    timeline.say("    attempt   waits before   since publish")
    for row in preview.attempts:
        note = "  first delivery" if row.attempt == 0 else ""
        if row.cut_by_expiry:
            note = "  never made: past the room's expiry (the message expires instead)"
        timeline.say(
            f"    {row.attempt:>7}   {seconds(row.delay_ms / 1000):>12}   "
            f"{seconds(row.since_publish_ms / 1000):>13}{note}"
        )
    timeline.say("    then dead (or handed to the failover subscription, if it had one).")
    timeline.say(textwrap.fill(preview.note, width=92, initial_indent="    ", subsequent_indent="    "))
    timeline.say()


def print_summary(scenario: Scenario) -> int:
    """The summary of the run; 0 when the webhook calls were the expected ones, validly signed."""
    assert scenario.consumer is not None
    assert scenario.schedule is not None
    say = scenario.timeline.say
    calls = scenario.receiver.snapshot()
    push = scenario.deliveries["PUSH"]
    pull = scenario.deliveries["PULL"]
    say()
    say("Summary")
    say(f"  PUSH {scenario.push_id}: {push.status} after {push.attempts} attempts")
    say("      attempt   answer                 waited   policy")
    previous: WebhookCall | None = None
    attempts_seen: set[int | None] = set()
    duplicates = 0
    for call in calls:
        answer = str(call.status) + (f" Retry-After {call.retry_after} s" if call.retry_after else "")
        if call.attempt is not None and call.attempt in attempts_seen:
            duplicates += 1
            answer += " (duplicate delivery)"
        attempts_seen.add(call.attempt)
        if previous is None:
            waited, policy = "-", "-"
        else:
            waited = seconds(call.arrived_at - previous.arrived_at)
            policy = policy_wait(scenario.schedule, call.attempt, previous)
        attempt = "?" if call.attempt is None else str(call.attempt)
        say(f"      {attempt:>7}   {answer:<20}   {waited:>6}   {policy}")
        previous = call
    bad = [c for c in calls if c.signature_problem is not None]
    ids = {c.webhook_id for c in calls}
    if bad:
        say(f"      {len(bad)} request(s) had a BAD signature: {bad[0].signature_problem}")
    else:
        say(f"      all {len(calls)} requests carried a valid signature")
    say(f"      and the same webhook-id ({', '.join(sorted(ids))}): receivers drop duplicates by it")
    if duplicates:
        say(f"      {duplicates} duplicate(s): delivery is at least once, so a receiver can see one twice")
    consumer = scenario.consumer
    came_back = (
        seconds(consumer.returned_at - consumer.nacked_at)
        if consumer.returned_at and consumer.nacked_at
        else "?"
    )
    say(
        f"  PULL {scenario.pull_id}: {pull.status} after {pull.attempts} attempts "
        f"(attempts pulled: {', '.join(map(str, consumer.attempts_seen))})"
    )
    schedule = scenario.schedule.attempts
    policy = seconds(schedule[1].delay_ms / 1000) if len(schedule) > 1 else "?"
    say(f"      nacked attempt 0; it came back {came_back} later (policy {policy}); acked attempt 1")
    say(
        "  'waited' is from one request to the next, so it runs a little over the policy here: SQS\n"
        "  delays are whole seconds, and the local poller, like Lambda's, gathers a batch for up to\n"
        "  1 s (MaximumBatchingWindowInSeconds) before it invokes the push function."
    )
    final = ", ".join(
        f"{kind} {delivery.status} ({delivery.attempts} attempts)"
        for kind, delivery in scenario.deliveries.items()
    )
    say(f"  Final status (GET /rooms/…/messages/{scenario.message_id}): {final}")
    distinct = list(dict.fromkeys((c.attempt, c.status) for c in calls))
    if bad or distinct != EXPECTED_WEBHOOK_CALLS:
        say("\nDEMO FAILED: the webhook calls were not the expected attempts 0-3 with valid signatures.")
        return 1
    return 0


def policy_wait(preview: SchedulePreview, attempt: int | None, previous: WebhookCall) -> str:
    """The wait the policy sets before ``attempt``, and how the previous answer's Retry-After
    bore on it."""
    if attempt is None or not 0 < attempt < len(preview.attempts):
        return "-"
    policy_ms = preview.attempts[attempt].delay_ms
    if previous.retry_after is not None:
        asked_ms = float(previous.retry_after) * 1000
        if asked_ms > policy_ms:
            policy = seconds(policy_ms / 1000)
            return f"{seconds(asked_ms / 1000)} (Retry-After raised the policy's {policy})"
        if asked_ms == policy_ms:
            return f"{seconds(policy_ms / 1000)} (Retry-After asked the same; it can only lengthen a wait)"
        return f"{seconds(policy_ms / 1000)} (Retry-After asked less; it never shortens a wait)"
    return seconds(policy_ms / 1000)
