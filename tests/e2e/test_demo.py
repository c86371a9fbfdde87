"""`make demo` (roomcast_dev.demo) runs its whole scenario against a local stack."""

from __future__ import annotations

import io
import json
import re
import time

import requests

from roomcast.catalog.store import CatalogTable
from roomcast.platform.credentials import new_signing_secret
from roomcast.webhooks.signing import webhook_headers
from roomcast_dev.demo import run_demo
from roomcast_dev.demo_timeline import Timeline
from roomcast_dev.demo_webhook import DemoWebhook
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack
from tests.e2e.delivery_log import log_events


def _line(output: str, pattern: str) -> str:
    match = re.search(pattern, output, re.MULTILINE)
    assert match, f"no line matches {pattern!r} in:\n{output}"
    return match.group(0)


def test_demo_shows_push_retries_and_pull_nack_then_cleans_up(local_stack: LocalStack) -> None:
    repository = CatalogTable(local_stack.output("TableName"), client=local_stack.client("dynamodb"))
    api_key = create_api_key(repository, "demo")
    out = io.StringIO()

    code = run_demo(local_stack.api_url, api_key, out)

    output = out.getvalue()
    assert code == 0, output
    assert "Traceback" not in output
    _line(output, r"^\s+\+0\.00 s  publish\s+msg_\w+ to 2 destinations \(correlation order-1001\)$")
    # The webhook server's answers, attempt by attempt, each with a valid signature.
    for attempt, answer in ((0, "500"), (1, "503 Retry-After 2 s"), (2, "500"), (3, "200 delivered")):
        line = _line(output, rf"^\s+\+\d+\.\d\d s  webhook\s+attempt {attempt} → {answer}  \(.*\)$")
        assert "signature ok" in line, line
    # Between the failures the API reports the backoff: 1 s, then 2 s, then 4 s. The demo shows the
    # next attempt's time less the failed request's answer, which reached the function a moment
    # later (a moment a busy machine stretches): no shorter than the backoff; the backoff itself is
    # what the push function scheduled (the delivery log).
    for attempts, wait in ((1, 1.0), (2, 2.0), (3, 4.0)):
        line = _line(output, rf"status\s+PUSH retrying, attempts {attempts}, next attempt at .*")
        shown = re.search(r"\(retry in (\d+\.\d) s\)", line)
        assert shown, line
        assert float(shown.group(1)) >= wait - 0.05, line
    push_subscription = _line(output, r"PUSH sub_\w+: delivered after 4 attempts").split()[1].rstrip(":")
    scheduled = sorted(
        log_events(local_stack, "retry_scheduled", push_subscription), key=lambda r: r["attempt"]
    )
    assert [r["nextDelayMs"] for r in scheduled] == [1000, 2000, 4000], scheduled
    _line(output, r"status\s+PUSH delivered, attempts 4$")
    # PULL: attempt 0 is nacked, comes back as attempt 1 after the backoff and is acked.
    _line(output, r"PULL\s+pull → msg_\S+ attempt 0$")
    _line(output, r"PULL\s+nack → outcome retry: .* comes back at \+\d+\.\d\d s$")
    _line(output, r"PULL\s+pull → msg_\S+ attempt 1, back \d+\.\d s after the nack$")
    _line(output, r"PULL\s+ack → acked msg_")
    _line(output, r"status\s+PULL delivered, attempts 2$")
    # Lines come in time order. Most are stamped as they are printed: each no earlier than any line
    # before it. A webhook line (stamped on the request's arrival) and the nack line (on the nack's
    # answer) are printed a moment after their stamp, while other threads print (a moment a busy
    # machine stretches): each is in order with the lines of its own source.
    lines = re.findall(r"^\s+\+(\d+\.\d\d) s  (\S+)\s+(.*)$", output, re.MULTILINE)
    for n, (at, who, text) in enumerate(lines):
        stamped_before_printed = who == "webhook" or text.startswith("nack →")
        earlier = [float(a) for a, source, _ in lines[:n] if not stamped_before_printed or source == who]
        assert all(float(at) >= stamp - 0.01 for stamp in earlier), (lines[n], output)
    assert "PUSH sub_" in _line(output, r"PUSH sub_\w+: delivered after 4 attempts")
    _line(output, r"PULL sub_\w+: delivered after 2 attempts")
    # and the throttled subscription's three requests came on the limit's schedule, as first
    # attempts: its slots are a second apart, the first no sooner than the publishes began (where
    # the demo's "at" counts from), so the n-th request (from 0) came n seconds after or later. (Not
    # each gap: a request that left late, on a busy machine, narrows the next one.)
    throttled = re.findall(r"at +(\d+\.\d\d) s: webhook order \d+, attempt (\d+)", output)
    assert len(throttled) == 3, output
    assert {attempt for _, attempt in throttled} == {"0"}
    arrivals = sorted(float(at) for at, _ in throttled)
    assert all(at >= n - 0.01 for n, at in enumerate(arrivals)), arrivals

    room_id = re.search(r"deleted room (room_\w+)", output)
    assert room_id, output
    response = requests.get(
        f"{local_stack.api_url}/rooms/{room_id.group(1)}",
        headers={"Authorization": f"Bearer {api_key}"},
        timeout=30,
    )
    assert response.status_code == 404, response.text


def test_demo_reports_an_unusable_key_without_a_traceback(local_stack: LocalStack) -> None:
    out = io.StringIO()

    code = run_demo(local_stack.api_url, "rc_not_a_key_of_this_stack_000000", out, timeout_s=10)

    output = out.getvalue()
    assert code == 1
    assert "DEMO FAILED: POST /rooms answered 403" in output
    assert "ROOMCAST_API_KEY" in output
    assert "Traceback" not in output


def test_demo_gives_up_with_a_clear_message_and_still_cleans_up(local_stack: LocalStack) -> None:
    repository = CatalogTable(local_stack.output("TableName"), client=local_stack.client("dynamodb"))
    api_key = create_api_key(repository, "demo")
    out = io.StringIO()

    code = run_demo(local_stack.api_url, api_key, out, timeout_s=3)

    output = out.getvalue()
    assert code == 1, output
    assert "Traceback" not in output
    line = _line(output, r"^DEMO FAILED: gave up after 3 s, still waiting for: .*$")
    assert "the PUSH delivery" in line, line
    _line(output, r"deleted room room_\w+")


def test_the_webhook_server_checks_standard_webhooks_signatures() -> None:
    # Given the demo's webhook server, and a valid, a tampered, a foreign and a stale request
    server = DemoWebhook(Timeline(io.StringIO()))
    server.secret = secret = new_signing_secret()
    # A whole webhook body: the server checks with the SDK's verify_webhook, which also reads it.
    envelope = {"messageId": "msg_1", "roomId": "room_1", "subscriptionId": "sub_1", "attempt": 0}
    message = {"eventType": "order.created", "eventVersion": "1", "correlationId": "corr-1"}
    published = {"publishedAt": "2026-11-22T08:23:18.831Z", "payload": {"orderId": 1001}}
    body = json.dumps({**envelope, **message, **published}, separators=(",", ":")).encode()
    headers = webhook_headers("msg_1", int(time.time()), body, [new_signing_secret(), secret], "corr-1")
    sent = [
        (headers, body),
        (headers, body + b" "),
        (webhook_headers("msg_1", int(time.time()), body, [new_signing_secret()], "corr-1"), body),
        ({**headers, "webhook-timestamp": str(int(time.time()) - 3600)}, body),
    ]

    # When each is posted to it
    server.start()
    try:
        for sent_headers, sent_body in sent:
            requests.post(server.url, data=sent_body, headers=sent_headers, timeout=30)
        problems = [call.signature_problem for call in server.snapshot()]
    finally:
        server.stop()

    # Then only the valid one passes its check
    valid, tampered, other_secret, stale = problems
    assert valid is None
    assert tampered is not None
    assert other_secret is not None
    assert stale is not None
