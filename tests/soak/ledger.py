"""The soak's ledger: what every client saw (publishes, webhook requests, PULL hand-outs and
acks, 5xx answers) and every kill, and the check, once the stack has drained, that each
(message, destination) that got a 202 ended as its policy says.

A destination is **lost** when it is not `delivered`, `dead` or `expired` after the drain, or is
`delivered` without its subscriber having it (no 2xx webhook answer in time with a valid
signature; no ack the consumer saw succeed), or ended otherwise although roomcast recorded a 2xx
answer for it. A PUSH destination that did not end delivered although its subscriber answered a
request 2xx in time is **explained** only by roomcast's own history of that attempt (the worker
gave up on it first: a timeout on a starved machine) or by a push worker killed before recording
it; anything else is a problem. A **duplicate** is a webhook request or a PULL
hand-out of an attempt number the subscriber had already seen for that message: the policy
explains one per attempt; kills (and late acks) explain the rest.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Kind = Literal["PUSH", "PULL"]
TERMINAL = frozenset({"delivered", "dead", "expired"})
# A kill explains a 5xx of a request in flight at that moment; this much clock slack either side.
KILL_WINDOW_SLACK_SECONDS = 0.2
# A success the subscriber saw but roomcast never recorded is explained by a push worker killed
# this soon after it (the batch comes back after the visibility timeout, maybe past the expiry).
KILLED_BEFORE_RECORDING_SECONDS = 10.0


@dataclass(frozen=True)
class Destination:
    """A subscription of the soak, with what its policy lets us expect."""

    subscription_id: str
    room_id: str
    name: str
    kind: Kind
    delivery_attempts: int  # redeliveries after the first delivery (the effective policy)
    expires: bool  # the room has a messageExpirationMs
    never_succeeds: bool  # every answer is a failure: it can only end dead or expired
    ack_wait_seconds: float = 0.0  # PULL
    ordered: bool = False  # a key's messages one at a time, in publish order (onDeadKey: skip)


@dataclass(frozen=True)
class Kill:
    at: float  # epoch seconds
    function_id: str
    pid: int


@dataclass(frozen=True)
class ServerError:
    """A 5xx answer one of the soak's clients got (and retried)."""

    started_at: float  # epoch seconds
    answered_at: float
    method: str
    path: str
    status: int
    function_id: str
    body: str


@dataclass
class Publish:
    """One message the soak meant to publish, with every try (same Idempotency-Key) it took."""

    number: int
    room_id: str
    correlation_id: str
    idempotency_key: str
    started_at: float = field(default_factory=time.time)  # epoch seconds
    statuses: list[int] = field(default_factory=list)
    message_id: str | None = None
    destinations: tuple[str, ...] = ()
    published_at: float | None = None  # epoch seconds, from the 202's publishedAt
    refusal: str | None = None  # an answer that was neither 202, 409 nor 5xx
    asked_delay_ms: int | None = None  # published with deliverAfterMs (scheduled)
    deliver_at: float | None = None  # epoch seconds, from the 202's deliverAt
    ordering_key: str | None = None

    @property
    def due_at(self) -> float | None:
        """When its destinations may first get it: its deliverAt, else its publishing."""
        return self.deliver_at if self.deliver_at is not None else self.published_at


@dataclass(frozen=True)
class WebhookRequest:
    subscription_id: str
    message_id: str
    attempt: int
    arrived_at: float  # epoch seconds
    status: int
    in_time: bool  # answered before the subscription's timeoutMs (not a stall)
    signature_ok: bool

    @property
    def succeeded(self) -> bool:
        return 200 <= self.status < 300 and self.in_time and self.signature_ok


@dataclass(frozen=True)
class Handout:
    subscription_id: str
    message_id: str
    attempt: int
    at: float  # epoch seconds
    action: str  # what the consumer does with it: ack, nack or drop


@dataclass(frozen=True)
class Ack:
    subscription_id: str
    message_id: str
    handed_out_at: float  # epoch seconds
    answered_at: float  # epoch seconds: the ack's answer listed it under `acked`


@dataclass(frozen=True)
class FinalState:
    """What the API says at the end: message statuses, dead letters and each room's messages."""

    statuses: dict[str, dict[str, Any]]  # message id -> GET /rooms/{roomId}/messages/{messageId}
    missing_messages: set[str]  # 404
    dead_letters: dict[str, set[str]]  # subscription id -> message ids
    room_messages: dict[str, list[dict[str, Any]]]  # room id -> GET /rooms/{roomId}/messages
    # (subscription id, message id) -> roomcast's attempt history (GET …/attempts), read for the
    # PUSH destinations that did not end delivered although their subscriber answered 2xx
    attempts: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class Report:
    publishing_seconds: float = 0.0
    draining_seconds: float = 0.0
    published: int = 0
    scheduled: int = 0  # of published: with deliverAfterMs
    early: int = 0  # deliveries (webhook requests, hand-outs) before their message's deliverAt
    publish_tries_5xx: int = 0
    publish_tries_409: int = 0
    destinations: int = 0
    kills: Counter[str] = field(default_factory=Counter)
    missed_kills: Counter[str] = field(default_factory=Counter)
    crashed_invocations: int = 0
    server_errors: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    webhook_requests: int = 0
    handouts: int = 0
    acks_refused: int = 0  # receipts SQS no longer took (the ack wait had run out)
    duplicate_webhooks: int = 0
    duplicates_after_kill: int = 0  # of duplicate_webhooks: a push worker was killed in between
    longest_push_invocation_seconds: float = 0.0
    duplicate_handouts: int = 0
    delivered_twice: int = 0
    lags_seconds: list[float] = field(default_factory=list)
    slowest: str = ""  # the destination with the longest lag
    lost: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    explained: list[str] = field(default_factory=list)
    stuck_keys: list[str] = field(default_factory=list)  # tests/soak/key_lines.py
    kill_log: list[str] = field(default_factory=list)
    ordered_keys: int = 0  # (ordered subscription, key) lines checked (tests/soak/ordering_check.py)
    ordered_messages: int = 0  # their messages that reached the subscriber

    @property
    def max_lag_seconds(self) -> float:
        return max(self.lags_seconds, default=0.0)

    def add_lag(self, seconds: float, where: str) -> None:
        if seconds > self.max_lag_seconds:
            self.slowest = where
        self.lags_seconds.append(seconds)

    def text(self) -> str:
        lags = sorted(self.lags_seconds)
        median = statistics.median(lags) if lags else 0.0
        p95 = lags[int(0.95 * (len(lags) - 1))] if lags else 0.0
        kills = ", ".join(f"{name} {count}" for name, count in sorted(self.kills.items())) or "none"
        missed = ", ".join(f"{name} {count}" for name, count in sorted(self.missed_kills.items())) or "none"
        errors = ", ".join(f"{name} {count}" for name, count in sorted(self.server_errors.items())) or "none"
        lines = [
            f"publishing with kills  {self.publishing_seconds:.0f} s, drain {self.draining_seconds:.0f} s",
            f"messages published     {self.published}, {self.scheduled} of them scheduled "
            f"(tries answered 5xx: {self.publish_tries_5xx}, 409 in progress: {self.publish_tries_409})",
            f"destinations           {self.destinations}",
            f"kills                  {sum(self.kills.values())} ({kills}); "
            f"crashed invocations {self.crashed_invocations}; aimed at but idle: {missed}",
            f"5xx seen by clients    {sum(self.server_errors.values())} ({errors})",
            f"delivered / dead / expired  {self.outcomes['delivered']} / {self.outcomes['dead']} / "
            f"{self.outcomes['expired']}",
            f"webhook requests       {self.webhook_requests}; PULL hand-outs {self.handouts} "
            f"(acks refused: {self.acks_refused}, their ack wait over or their message ended)",
            f"duplicates             {self.duplicate_webhooks} webhook requests "
            f"({self.duplicates_after_kill} after a push worker kill; longest push invocation "
            f"{self.longest_push_invocation_seconds:.1f} s), "
            f"{self.duplicate_handouts} PULL hand-outs (an attempt seen again); "
            f"{self.delivered_twice} destinations delivered twice",
            f"delivery lag           max {self.max_lag_seconds:.2f} s, median {median:.2f} s, "
            f"p95 {p95:.2f} s (publish or deliverAt -> first successful delivery); slowest: {self.slowest}",
            f"before deliverAt       {self.early} webhook requests or hand-outs",
            f"ordering keys          {self.ordered_keys} keys of ordered subscriptions, "
            f"{self.ordered_messages} of their messages checked in order",
            f"lost                   {len(self.lost)}",
        ]
        lines += [f"  LOST {line}" for line in self.lost]
        lines += [f"  STUCK KEY {line}" for line in self.stuck_keys]
        lines += [f"  PROBLEM {line}" for line in self.problems]
        lines += [f"  explained: {line}" for line in self.explained]
        return "\n".join(lines)

    def kill_timeline(self) -> str:
        return "\n".join(["kills:", *(f"  {line}" for line in self.kill_log)])


class Ledger:
    """Thread-safe: the soak's publishers, consumers, webhook servers and killer all write to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.destinations: dict[str, Destination] = {}
        self.publishes: list[Publish] = []
        self.kills: list[Kill] = []
        self.missed_kills: Counter[str] = Counter()  # the function ran no invocation while aimed at
        self.server_errors: list[ServerError] = []
        self.webhook_requests: list[WebhookRequest] = []
        self.handouts: list[Handout] = []
        self.acks: list[Ack] = []
        self.ack_refusals: list[str] = []

    # -- what the clients and servers write -----------------------------------------------------

    def add_destination(self, destination: Destination) -> None:
        with self._lock:
            self.destinations[destination.subscription_id] = destination

    def add_publish(self, publish: Publish) -> None:
        with self._lock:
            self.publishes.append(publish)

    def add_kill(self, kill: Kill) -> None:
        with self._lock:
            self.kills.append(kill)

    def add_missed_kill(self, function_id: str) -> None:
        with self._lock:
            self.missed_kills[function_id] += 1

    def add_server_error(self, error: ServerError) -> None:
        with self._lock:
            self.server_errors.append(error)

    def add_webhook_request(self, request: WebhookRequest) -> None:
        with self._lock:
            self.webhook_requests.append(request)

    def add_handouts(self, handouts: list[Handout]) -> None:
        with self._lock:
            self.handouts.extend(handouts)

    def add_acks(self, acks: list[Ack]) -> None:
        with self._lock:
            self.acks.extend(acks)

    def add_ack_refusal(self, text: str) -> None:
        with self._lock:
            self.ack_refusals.append(text)

    # -- the check ------------------------------------------------------------------------------

    def check(self, final: FinalState, crashed_invocations: int) -> Report:
        """Every accepted (message, destination) against the API's final word; the figures."""
        report = Report(crashed_invocations=crashed_invocations)
        report.kill_log = [f"{_iso(k.at)} {k.function_id} pid {k.pid}" for k in self.kills]
        report.kills = Counter(kill.function_id for kill in self.kills)
        report.missed_kills = Counter(self.missed_kills)
        report.webhook_requests = len(self.webhook_requests)
        report.handouts = len(self.handouts)
        report.acks_refused = len(self.ack_refusals)
        self._check_server_errors(report)
        self._check_publishes(report, final)
        requests_by_destination: dict[tuple[str, str], list[WebhookRequest]] = defaultdict(list)
        for request in self.webhook_requests:
            requests_by_destination[(request.subscription_id, request.message_id)].append(request)
        handouts_by_destination: dict[tuple[str, str], list[Handout]] = defaultdict(list)
        for handout in self.handouts:
            handouts_by_destination[(handout.subscription_id, handout.message_id)].append(handout)
        acks_by_destination: dict[tuple[str, str], list[Ack]] = defaultdict(list)
        for ack in self.acks:
            acks_by_destination[(ack.subscription_id, ack.message_id)].append(ack)
        for seen in requests_by_destination.values():
            for earlier, repeat in _repeats(seen):
                report.duplicate_webhooks += 1
                report.duplicates_after_kill += self._push_killed_between(
                    earlier.arrived_at, repeat.arrived_at
                )
            report.delivered_twice += sum(1 for r in seen if r.succeeded) > 1
        for handed in handouts_by_destination.values():
            report.duplicate_handouts += _repeated_attempts(h.attempt for h in handed)
        for acked in acks_by_destination.values():
            report.delivered_twice += len(acked) > 1

        for publish in self.publishes:
            if publish.message_id is None:
                continue
            report.published += 1
            report.scheduled += publish.deliver_at is not None
            status = final.statuses.get(publish.message_id)
            for subscription_id in publish.destinations:
                report.destinations += 1
                destination = self.destinations.get(subscription_id)
                where = f"message {publish.message_id} -> {subscription_id}"
                if destination is None:
                    report.problems.append(f"{where}: routed to a subscription the soak did not create")
                    continue
                where += f" ({destination.name})"
                if status is None:
                    report.lost.append(f"{where}: the message is gone (404)")
                    continue
                delivery = next(
                    (d for d in status["deliveries"] if d["subscriptionId"] == subscription_id), None
                )
                if delivery is None:
                    report.lost.append(f"{where}: no delivery record for this destination")
                    continue
                outcome = delivery["status"]
                report.outcomes[outcome] += 1
                key = (subscription_id, publish.message_id)
                start = publish.due_at or 0.0
                self._check_not_early(
                    report, where, publish, requests_by_destination[key], handouts_by_destination[key]
                )
                if outcome not in TERMINAL:
                    report.lost.append(
                        f"{where}: still {outcome} after the drain (attempts {delivery['attempts']}, "
                        f"last error {delivery['lastError']!r}, next attempt {delivery['nextAttemptAt']}, "
                        f"updated {delivery['updatedAt']}); seen by the subscriber: "
                        f"{_seen(requests_by_destination[key], handouts_by_destination[key], start)}"
                    )
                    continue
                if destination.kind == "PUSH":
                    self._check_push(
                        report,
                        where,
                        destination,
                        outcome,
                        delivery,
                        publish,
                        requests_by_destination[key],
                        final,
                    )
                else:
                    self._check_pull(
                        report,
                        where,
                        destination,
                        outcome,
                        publish,
                        acks_by_destination[key],
                        handouts_by_destination[key],
                        final,
                    )
        return report

    @staticmethod
    def _check_not_early(
        report: Report, where: str, publish: Publish, requests: list[WebhookRequest], handouts: list[Handout]
    ) -> None:
        """A scheduled message reaches no subscriber before its deliverAt (both clocks are this
        machine's)."""
        if publish.deliver_at is None:
            return
        early = [r.arrived_at for r in requests if r.arrived_at < publish.deliver_at]
        early += [h.at for h in handouts if h.at < publish.deliver_at]
        report.early += len(early)
        if early:
            report.problems.append(
                f"{where}: reached its subscriber {publish.deliver_at - min(early):.3f} s "
                "before its deliverAt"
            )

    def _check_push(
        self,
        report: Report,
        where: str,
        destination: Destination,
        outcome: str,
        delivery: dict[str, Any],
        publish: Publish,
        seen: list[WebhookRequest],
        final: FinalState,
    ) -> None:
        successes = sorted((r for r in seen if r.succeeded), key=lambda r: r.arrived_at)
        if any(not r.signature_ok for r in seen):
            report.problems.append(f"{where}: a webhook request with a signature that does not verify")
        if outcome == "delivered":
            if not successes:
                report.lost.append(
                    f"{where}: recorded delivered, but the webhook server never answered 2xx in time "
                    f"to a signed request: {_seen(seen, [], publish.published_at or 0.0)}"
                )
            elif publish.due_at is not None:
                report.add_lag(
                    successes[0].arrived_at - publish.due_at,
                    f"{where}: {_seen(seen, [], publish.due_at)}",
                )
            if destination.never_succeeds:
                report.problems.append(f"{where}: delivered, but its endpoint never answers 2xx")
            return
        self._check_ending(report, where, destination, outcome, publish, final)
        for success in successes:
            self._check_unrecorded_success(report, where, outcome, success, delivery, publish, seen, final)
        if outcome == "dead":
            attempts_seen = {r.attempt for r in seen}
            if not set(range(destination.delivery_attempts + 1)) <= attempts_seen:
                report.problems.append(
                    f"{where}: dead without every attempt 0..{destination.delivery_attempts} reaching the "
                    f"subscriber (saw {sorted(attempts_seen)}; lastError {delivery['lastError']!r})"
                )

    def _check_unrecorded_success(
        self,
        report: Report,
        where: str,
        outcome: str,
        success: WebhookRequest,
        delivery: dict[str, Any],
        publish: Publish,
        seen: list[WebhookRequest],
        final: FinalState,
    ) -> None:
        """A destination that did not end delivered although its subscriber answered one request
        2xx in time. Explained when roomcast's own history shows that attempt failing (its worker
        read no 2xx within the timeout: a starved worker, at least once, not a lost record) or a
        push worker was killed before it could record it; a problem when the history shows the 2xx
        (a record was lost) or says nothing of the attempt without a kill."""
        recorded = [
            a
            for a in final.attempts.get((success.subscription_id, success.message_id), [])
            if a["event"] == "post" and a["attempt"] == success.attempt
        ]
        if any(a.get("httpStatus") is not None and 200 <= a["httpStatus"] < 300 for a in recorded):
            report.lost.append(
                f"{where}: {outcome}, though roomcast recorded attempt {success.attempt} answered 2xx: "
                f"{_seen(seen, [], publish.published_at or 0.0)}"
            )
        elif recorded:
            errors = sorted({str(a.get("error")) for a in recorded})
            report.explained.append(
                f"{where}: {outcome}; the subscriber answered attempt {success.attempt} 2xx, but the push "
                f"worker had given up on it first ({', '.join(errors)}): at least once, not a lost record"
            )
        elif self._push_killed_between(
            success.arrived_at, success.arrived_at + KILLED_BEFORE_RECORDING_SECONDS
        ):
            report.explained.append(
                f"{where}: {outcome}, though the subscriber answered 2xx (a push worker was killed "
                "before it could record the delivery)"
            )
        else:
            history = f"{delivery.get('attempts')} attempts, lastError {delivery.get('lastError')!r}"
            report.problems.append(
                f"{where}: {outcome}, though the subscriber answered attempt {success.attempt} 2xx and "
                f"roomcast's history does not show that attempt: "
                f"{_seen(seen, [], publish.published_at or 0.0)} (roomcast recorded {history})"
            )

    def _check_pull(
        self,
        report: Report,
        where: str,
        destination: Destination,
        outcome: str,
        publish: Publish,
        acks: list[Ack],
        handouts: list[Handout],
        final: FinalState,
    ) -> None:
        seen = _seen([], handouts, publish.published_at or 0.0)
        if outcome == "delivered":
            if not acks:
                report.lost.append(
                    f"{where}: recorded delivered, but the consumer never saw an ack succeed: {seen}"
                )
            elif publish.due_at is not None:
                report.add_lag(min(a.answered_at for a in acks) - publish.due_at, f"{where}: {seen}")
            return
        self._check_ending(report, where, destination, outcome, publish, final)
        for ack in acks:
            if ack.answered_at - ack.handed_out_at >= destination.ack_wait_seconds:
                report.explained.append(f"{where}: {outcome}; the consumer's ack came after its ack wait")
            else:
                report.problems.append(
                    f"{where}: {outcome}, though an ack within the ack wait succeeded "
                    f"({ack.answered_at - ack.handed_out_at:.2f} s after the hand-out)"
                )

    @staticmethod
    def _check_ending(
        report: Report,
        where: str,
        destination: Destination,
        outcome: str,
        publish: Publish,
        final: FinalState,
    ) -> None:
        assert publish.message_id is not None
        dead_letters = final.dead_letters.get(destination.subscription_id, set())
        if outcome == "dead" and publish.message_id not in dead_letters:
            report.problems.append(f"{where}: dead, but not among the subscription's dead letters")
        if outcome == "expired" and not destination.expires:
            report.problems.append(f"{where}: expired in a room whose messages never expire")

    def _push_killed_between(self, start: float, end: float) -> bool:
        return any(kill.function_id == "PushFunction" and start <= kill.at <= end for kill in self.kills)

    def _check_server_errors(self, report: Report) -> None:
        for error in self.server_errors:
            report.server_errors[f"{error.function_id} {error.status}"] += 1
            explained = error.body.startswith('{"message"') and any(
                kill.function_id in (error.function_id, "AuthorizerFunction")
                and error.started_at - KILL_WINDOW_SLACK_SECONDS
                <= kill.at
                <= error.answered_at + KILL_WINDOW_SLACK_SECONDS
                for kill in self.kills
            )
            if not explained:
                report.problems.append(
                    f"{error.method} {error.path} answered {error.status} with no worker of "
                    f"{error.function_id} killed meanwhile: {error.body[:300]}"
                )

    def _check_publishes(self, report: Report, final: FinalState) -> None:
        by_correlation: dict[str, list[str]] = defaultdict(list)
        listed: dict[str, dict[str, Any]] = {}
        for messages in final.room_messages.values():
            for message in messages:
                by_correlation[message["correlationId"]].append(message["messageId"])
                listed[message["messageId"]] = message
        for publish in self.publishes:
            report.publish_tries_5xx += sum(1 for s in publish.statuses if s >= 500)
            report.publish_tries_409 += publish.statuses.count(409)
            if publish.message_id is None:
                report.problems.append(
                    f"publish #{publish.number} ({publish.correlation_id}) never answered 202: "
                    f"{_answers(publish.statuses)} {publish.refusal or ''}"
                )
                continue
            stored = by_correlation.get(publish.correlation_id, [])
            if stored != [publish.message_id]:
                extra = [m for m in stored if m != publish.message_id]
                details = "; ".join(
                    f"{m} published {listed[m]['publishedAt']}: {_statuses(listed[m])}" for m in extra
                )
                report.problems.append(
                    f"publish #{publish.number} (Idempotency-Key {publish.idempotency_key}, first tried "
                    f"{_iso(publish.started_at)}, answered {_answers(publish.statuses)}) is {len(stored)} "
                    f"messages, not exactly the 202's {publish.message_id}; the others: {details or 'none'}"
                )
        for message_id in final.missing_messages:
            report.lost.append(f"message {message_id}: answered 202, then 404")


def _repeated_attempts(attempts: Any) -> int:
    return sum(count - 1 for count in Counter(attempts).values())


def _repeats(requests: list[WebhookRequest]) -> list[tuple[WebhookRequest, WebhookRequest]]:
    """Each request of an attempt number already seen, with the first request of that attempt."""
    first: dict[int, WebhookRequest] = {}
    found = []
    for request in sorted(requests, key=lambda r: r.arrived_at):
        if request.attempt in first:
            found.append((first[request.attempt], request))
        else:
            first[request.attempt] = request
    return found


def _seen(requests: list[WebhookRequest], handouts: list[Handout], start: float = 0.0) -> str:
    """What the subscriber saw; times relative to ``start`` (the publish)."""
    parts = [
        f"+{r.arrived_at - start:.1f} s attempt {r.attempt} -> {r.status}{'' if r.in_time else ' (stalled)'}"
        for r in sorted(requests, key=lambda r: r.arrived_at)
    ] + [
        f"+{h.at - start:.1f} s attempt {h.attempt} -> {h.action}"
        for h in sorted(handouts, key=lambda h: h.at)
    ]
    return "; ".join(parts) or "nothing"


def _answers(statuses: list[int]) -> str:
    """[500, 409, 409, 202] -> '500, 409 x2, 202'."""
    runs = [(status, len(list(group))) for status, group in itertools.groupby(statuses)]
    return ", ".join(f"{status} x{count}" if count > 1 else str(status) for status, count in runs)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def _statuses(message: dict[str, Any]) -> str:
    return ", ".join(
        f"{d['subscriptionId']} {d['status']} after {d['attempts']} attempts" for d in message["deliveries"]
    )


def epoch_seconds(iso_timestamp: str) -> float:
    return datetime.fromisoformat(iso_timestamp).timestamp()
