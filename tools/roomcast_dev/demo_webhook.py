"""``make demo``'s webhook server: a subscriber on 127.0.0.1 that fails the first three attempts
as a script says, checks every request with the SDK's ``verify_webhook`` and narrates each call."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, replace

from roomcast_client import WebhookVerificationError, verify_webhook
from roomcast_dev.demo_timeline import Timeline, short
from roomcast_dev.webhook_receiver import RecordedRequest, Reply, WebhookReceiver

# What the webhook server answers to attempts 0, 1 and 2; attempt 3 and later get 200. (Keyed by the
# attempt in the body, so a duplicate delivery -- at least once -- gets the answer its original got.)
WEBHOOK_SCRIPT: tuple[tuple[int, dict[str, str]], ...] = (
    (500, {}),
    (503, {"Retry-After": "2"}),
    (500, {}),
)


@dataclass
class WebhookCall:
    number: int  # 1 for the first request the server received
    arrived_at: float  # epoch seconds
    webhook_id: str
    attempt: int | None  # the envelope's attempt, from the body
    status: int
    retry_after: str | None
    signature_problem: str | None
    answered_at: float | None = None  # epoch seconds, once the answer is written


class DemoWebhook:
    """The demo's subscriber on 127.0.0.1: answers as WEBHOOK_SCRIPT says, verifies every
    signature and narrates each call on the timeline."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.secret = ""  # known once the PUSH subscription exists
        self._calls: list[WebhookCall] = []
        self._lock = threading.Lock()
        self._receiver = WebhookReceiver(self._answer, clock=time.time)

    @property
    def url(self) -> str:
        return self._receiver.url("/webhook")

    def start(self) -> None:
        self._receiver.start()

    def stop(self) -> None:
        self._receiver.stop()

    def snapshot(self) -> list[WebhookCall]:
        """The calls so far, each with the moment its answer was written (once it was)."""
        answered_at = {request.number: request.answered_at for request in self._receiver.requests}
        with self._lock:
            return [replace(call, answered_at=answered_at.get(call.number - 1)) for call in self._calls]

    def _answer(self, number: int, request: RecordedRequest) -> Reply:
        body = request.json
        attempt = body.get("attempt") if isinstance(body, dict) else None
        if not isinstance(attempt, int) or isinstance(attempt, bool):
            attempt = None
        index = number if attempt is None else attempt
        status, extra = WEBHOOK_SCRIPT[index] if 0 <= index < len(WEBHOOK_SCRIPT) else (200, {})
        signature_problem: str | None = None  # the request is a roomcast webhook signed with the secret
        try:
            verify_webhook(self.secret, request.headers, request.body)
        except WebhookVerificationError as error:
            signature_problem = str(error)
        call = WebhookCall(
            number=number + 1,
            arrived_at=request.arrived_at,
            webhook_id=request.headers.get("webhook-id", ""),
            attempt=attempt,
            status=status,
            retry_after=extra.get("Retry-After"),
            signature_problem=signature_problem,
        )
        with self._lock:
            self._calls.append(call)
        self.timeline.emit("webhook", describe_call(call), at=request.arrived_at)
        reply = json.dumps({"ok": status == 200}).encode()
        return Reply(status, {**extra, "Content-Type": "application/json"}, reply)


def describe_call(call: WebhookCall) -> str:
    attempt = "?" if call.attempt is None else str(call.attempt)
    signature = (
        "signature ok" if call.signature_problem is None else f"SIGNATURE BAD: {call.signature_problem}"
    )
    answer = f"{call.status}"
    if call.retry_after is not None:
        answer += f" Retry-After {call.retry_after} s"
    if call.status == 200:
        answer += " delivered"
    return f"attempt {attempt} → {answer}  ({signature}, webhook-id {short(call.webhook_id, 16)})"
