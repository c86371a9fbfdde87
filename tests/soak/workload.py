"""The soak's workload: rooms with short policies, webhook servers that fail, throttle and stall,
PULL consumers that nack and drop, publishers that retry with an Idempotency-Key, and a killer
that SIGKILLs function workers mid-invocation. ``run_soak`` plays it all, drains, and hands the
ledger the API's final word.

Every subscriber's answer is a pure function of (seed, subscription, message, attempt): a
redelivery of the same attempt (after a kill) gets the same answer, and a run can be repeated
with ``SOAK_SEED``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

import requests
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from roomcast_dev.functions import LocalFunction
from roomcast_dev.stack import LocalStack
from roomcast_dev.webhook_receiver import RecordedRequest, Reply, WebhookReceiver
from tests.soak.key_lines import stuck_keys
from tests.soak.ledger import (
    Ack,
    Destination,
    FinalState,
    Handout,
    Kill,
    Ledger,
    Publish,
    Report,
    ServerError,
    WebhookRequest,
    epoch_seconds,
)
from tests.soak.ordering_check import order_figures

PushAnswer = Literal["ok", "fail", "throttle", "stall"]
PullAction = Literal["ack", "nack", "drop"]

# Where the gateway sends each route (the template's routes): whose kill explains a 5xx.
PULL_ROUTES = ("pull", "ack", "nack", "extend")
# Which functions the killer picks, and how often; any other function of the stack counts 1. Not
# the authorizer (its answers are cached for 300 s: it almost never runs) nor the docs.
KILL_WEIGHTS = {"PushFunction": 4, "PullFunction": 2, "PublishFunction": 2, "ManagementFunction": 1}
OTHER_KILL_WEIGHT = 1
NEVER_KILLED = ("AuthorizerFunction", "DocsFunction")
# The killer waits this long for its chosen function to be running an invocation.
KILL_AIM_SECONDS = 2.0
# A publish whose worker was killed holds its Idempotency-Key "in progress" for the function's
# timeout (29 s): its retries answer 409 until then.
PUBLISH_DEADLINE_SECONDS = 90.0
# Every fifth message is scheduled, 1 to 3 s ahead (ADR 0039): its release runs through the outbox
# while workers are killed, and it must reach no subscriber before its time.
SCHEDULED_EVERY = 5
SCHEDULED_DELAYS_MS = (1_000, 2_000, 3_000)
# Every other message carries one of a few ordering keys (a scheduled one cannot): the "ordered"
# room's subscriptions get each key's messages one at a time, in publish order (ADR 0041).
ORDERING_KEYS = 4
CALL_DEADLINE_SECONDS = 60.0
RETRY_PAUSE_SECONDS = 0.3
CONFLICT_PAUSE_SECONDS = 1.0
PULL_WAIT_SECONDS = 1
PAGE_LIMIT = 100


@dataclass(frozen=True)
class SoakSettings:
    publishing_seconds: float
    publishes_per_second: float
    kill_every_seconds: tuple[float, float]
    drain_timeout_seconds: float
    seed: int
    # Enough that a few held up by a killed publish (409 for up to 29 s) do not slow the rate.
    publishers: int = 6

    @classmethod
    def from_environment(cls, short_seconds: float) -> SoakSettings:
        """``SOAK_SECONDS`` long (publishing with kills), else the short run's ``short_seconds``."""
        return cls(
            publishing_seconds=float(os.environ.get("SOAK_SECONDS", short_seconds)),
            publishes_per_second=float(os.environ.get("SOAK_RATE", "3")),
            kill_every_seconds=(1.0, 2.5),
            drain_timeout_seconds=float(os.environ.get("SOAK_DRAIN_SECONDS", "120")),
            seed=int(os.environ.get("SOAK_SEED", random.randrange(1_000_000))),
        )


# -- the topology ----------------------------------------------------------------------------------


def choose[T: str](weights: Mapping[T, float], draw: float) -> T:
    """The key whose share of [0, 1) holds ``draw`` (weights in order, summing to 1)."""
    total = 0.0
    for key, weight in weights.items():
        total += weight
        if draw < total:
            return key
    return list(weights)[-1]


@dataclass(frozen=True)
class PushPlan:
    name: str
    answers: Mapping[PushAnswer, float]
    timeout_ms: int
    ordered: bool = False

    def reply(self, answer: PushAnswer) -> Reply:
        match answer:
            case "ok":
                return Reply(200)
            case "fail":
                return Reply(500)
            case "throttle":
                return Reply(429, {"Retry-After": "1"})
            case "stall":  # a 200 that comes a second after the subscription stopped waiting
                return Reply(200, delay_seconds=self.timeout_ms / 1000 + 1.0)


@dataclass(frozen=True)
class PullPlan:
    name: str
    actions: Mapping[PullAction, float]
    ack_wait_ms: int
    ordered: bool = False


@dataclass(frozen=True)
class RoomPlan:
    name: str
    policy: Mapping[str, Any]
    subscriptions: tuple[PushPlan | PullPlan, ...]


ROOMS = (
    RoomPlan(
        "steady",
        {"deliveryDelayMs": 300, "deliveryDelayMultiplier": 2.0, "deliveryAttempts": 3},
        (
            PushPlan("steady-healthy", {"ok": 0.85, "fail": 0.15}, timeout_ms=5000),
            PushPlan("steady-failing", {"fail": 1.0}, timeout_ms=5000),
            PullPlan("steady-nacker", {"ack": 0.5, "nack": 0.3, "drop": 0.2}, ack_wait_ms=1000),
        ),
    ),
    RoomPlan(
        "throttled",
        {"deliveryDelayMs": 500, "deliveryDelayMultiplier": 1.5, "deliveryAttempts": 4},
        (
            PushPlan("throttled-429", {"ok": 0.5, "throttle": 0.5}, timeout_ms=5000),
            PushPlan("throttled-stall", {"ok": 0.6, "stall": 0.4}, timeout_ms=1000),
            PullPlan("throttled-dropper", {"ack": 0.6, "drop": 0.4}, ack_wait_ms=1000),
        ),
    ),
    RoomPlan(
        "expiring",
        {
            "deliveryDelayMs": 400,
            "deliveryDelayMultiplier": 2.0,
            "deliveryAttempts": 5,
            "messageExpirationMs": 4000,
        },
        (
            PushPlan("expiring-failing", {"fail": 1.0}, timeout_ms=5000),
            PushPlan("expiring-stall", {"ok": 0.3, "stall": 0.7}, timeout_ms=1000),
            PullPlan("expiring-dropper", {"ack": 0.3, "nack": 0.2, "drop": 0.5}, ack_wait_ms=2000),
        ),
    ),
    RoomPlan(
        "ordered",
        {"deliveryDelayMs": 300, "deliveryDelayMultiplier": 2.0, "deliveryAttempts": 2},
        (
            PushPlan("ordered-flaky", {"ok": 0.7, "fail": 0.2, "stall": 0.1}, timeout_ms=1000, ordered=True),
            PullPlan(
                "ordered-nacker", {"ack": 0.7, "nack": 0.2, "drop": 0.1}, ack_wait_ms=1000, ordered=True
            ),
        ),
    ),
    RoomPlan(
        "plain",
        {"deliveryDelayMs": 200, "deliveryDelayMultiplier": 2.0, "deliveryAttempts": 2},
        (
            PushPlan("plain-healthy", {"ok": 1.0}, timeout_ms=5000),
            PullPlan("plain-acker", {"ack": 1.0}, ack_wait_ms=3000),
        ),
    ),
)


def draw(seed: int, *parts: object) -> float:
    """A number in [0, 1) fixed by the seed and the parts."""
    digest = hashlib.blake2b(repr((seed, *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest) / 2**64


# -- the API, as a retrying client sees it ----------------------------------------------------------


class SoakError(Exception):
    """A client of the soak could not get an answer it can go on with."""


def function_of(method: str, path: str) -> str:
    """The function the template routes ``method path`` to."""
    if method == "POST" and path.endswith("/messages"):
        return "PublishFunction"
    if path.rsplit("/", 1)[-1] in PULL_ROUTES:
        return "PullFunction"
    return "ManagementFunction"


class SoakApi:
    """One tenant's API client for many threads (a session each); retries every 5xx, as a client
    of API Gateway should, and records it in the ledger; waits out a 429 (the tenant's request
    rate, docs/decisions/0032-tenant-request-limits.md) for its Retry-After, as the SDK does."""

    def __init__(self, base_url: str, api_key: str, ledger: Ledger) -> None:
        self._base_url = base_url
        self._headers = {"Authorization": f"Bearer {api_key}"}
        self._ledger = ledger
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        on_answer: Callable[[int], None] | None = None,
        retry_conflicts: bool = False,
        deadline_seconds: float = CALL_DEADLINE_SECONDS,
    ) -> requests.Response:
        deadline = time.monotonic() + deadline_seconds
        while True:
            started_at = time.time()
            try:
                response = self._session().request(
                    method,
                    f"{self._base_url}{path}",
                    json=body,
                    params=params,
                    headers={**self._headers, **(headers or {})},
                    timeout=CALL_DEADLINE_SECONDS,
                )
                status, text = response.status_code, response.text
            except requests.RequestException as error:  # the gateway itself failed us: never expected
                response, status, text = None, 0, f"{type(error).__name__}: {error}"
            if on_answer is not None:
                on_answer(status)
            if (
                response is not None
                and status < 500
                and status != 429
                and not (retry_conflicts and status == 409)
            ):
                return response
            if status == 409:
                pause = CONFLICT_PAUSE_SECONDS
            elif status == 429 and response is not None:
                pause = float(response.headers.get("Retry-After") or 1)
            else:
                pause = RETRY_PAUSE_SECONDS
                self._ledger.add_server_error(
                    ServerError(
                        started_at, time.time(), method, path, status, function_of(method, path), text
                    )
                )
            if time.monotonic() + pause > deadline:
                raise SoakError(f"{method} {path}: still {status} after {deadline_seconds} s: {text[:300]}")
            time.sleep(pause)

    def json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        response = self.call(method, path, body, **kwargs)
        if response.status_code >= 300:
            raise SoakError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response.json()

    def pages(self, path: str, key: str) -> list[dict[str, Any]]:
        """Every item of a paged list."""
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"limit": PAGE_LIMIT} | ({"cursor": cursor} if cursor else {})
            page = self.json("GET", path, params=params)
            items.extend(page[key])
            cursor = page.get("nextCursor")
            if not cursor:
                return items


# -- the actors ------------------------------------------------------------------------------------


@dataclass
class Actors:
    """The threads of one soak and the errors they died of."""

    stop_publishing: threading.Event = field(default_factory=threading.Event)
    stop_faults: threading.Event = field(default_factory=threading.Event)  # the killer and watcher
    stop_consuming: threading.Event = field(default_factory=threading.Event)
    threads: dict[str, list[threading.Thread]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, group: str, name: str, target: Callable[[], None]) -> None:
        def run() -> None:
            try:
                target()
            except Exception as error:  # reported by the soak, which then fails
                with self._lock:
                    self.errors.append(f"{name}: {type(error).__name__}: {error}")

        thread = threading.Thread(target=run, name=f"soak-{name}", daemon=True)
        thread.start()
        self.threads.setdefault(group, []).append(thread)

    def running(self, group: str) -> int:
        return sum(thread.is_alive() for thread in self.threads.get(group, []))

    def join(self, group: str, timeout_seconds: float) -> None:
        deadline = time.monotonic() + timeout_seconds
        for thread in self.threads.get(group, []):
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                self.errors.append(f"{thread.name} still running after {timeout_seconds} s")


def webhook_script(
    plan: PushPlan, seed: int, ledger: Ledger, secrets: Mapping[str, str]
) -> Callable[[int, RecordedRequest], Reply]:
    """A subscriber's answers, each recorded in the ledger with whether its signature verifies."""

    def script(number: int, request: RecordedRequest) -> Reply:
        body = request.json
        if not isinstance(body, dict):
            return Reply(400)
        subscription_id, message_id, attempt = body["subscriptionId"], body["messageId"], body["attempt"]
        answer = choose(plan.answers, draw(seed, plan.name, message_id, attempt))
        try:
            Webhook(secrets[subscription_id]).verify(request.body, dict(request.headers))
            signature_ok = True
        except (KeyError, WebhookVerificationError):
            signature_ok = False
        reply = plan.reply(answer) if signature_ok else Reply(401)
        ledger.add_webhook_request(
            WebhookRequest(
                subscription_id,
                message_id,
                attempt,
                request.arrived_at,
                reply.status,
                answer != "stall",
                signature_ok,
            )
        )
        return reply

    return script


def consume(
    api: SoakApi,
    plan: PullPlan,
    room_id: str,
    subscription_id: str,
    seed: int,
    ledger: Ledger,
    stop: threading.Event,
) -> None:
    """A PULL consumer: pulls, then acks, nacks or drops each message as its plan draws."""
    base = f"/rooms/{room_id}/subscriptions/{subscription_id}"
    while not stop.is_set():
        pulled = api.json("POST", f"{base}/pull", {"maxMessages": 10, "waitSeconds": PULL_WAIT_SECONDS})
        now = time.time()
        handed = {m["receipt"]: m for m in pulled["messages"]}
        actions = {
            receipt: choose(plan.actions, draw(seed, plan.name, m["messageId"], m["attempt"]))
            for receipt, m in handed.items()
        }
        ledger.add_handouts(
            [
                Handout(subscription_id, m["messageId"], m["attempt"], now, actions[r])
                for r, m in handed.items()
            ]
        )
        to_ack = [r for r, a in actions.items() if a == "ack"]
        to_nack = [r for r, a in actions.items() if a == "nack"]
        if to_ack:
            answer = api.json("POST", f"{base}/ack", {"receipts": to_ack})
            acked_at = time.time()
            ledger.add_acks([Ack(subscription_id, m, now, acked_at) for m in answer["acked"]])
            for failure in answer["failed"]:
                ledger.add_ack_refusal(f"{subscription_id} {failure['messageId']}: {failure['error']}")
        if to_nack:
            api.json("POST", f"{base}/nack", {"receipts": to_nack})


def publish_all(
    api: SoakApi, rooms: list[str], settings: SoakSettings, ledger: Ledger, run_id: str, actors: Actors
) -> None:
    """Publishers share one schedule: message n is due at start + n / rate."""
    numbers = itertools.count()
    lock = threading.Lock()
    started = time.monotonic()

    def publisher() -> None:
        while not actors.stop_publishing.is_set():
            with lock:
                number = next(numbers)
            due = started + number / settings.publishes_per_second
            if due - started >= settings.publishing_seconds:
                return
            if actors.stop_publishing.wait(max(0.0, due - time.monotonic())):
                return
            publish_one(api, rooms[number % len(rooms)], number, ledger, run_id)

    for index in range(settings.publishers):
        actors.start("publishers", f"publisher-{index}", publisher)


def publish_one(api: SoakApi, room_id: str, number: int, ledger: Ledger, run_id: str) -> None:
    record = Publish(number, room_id, f"soak-{run_id}-{number}", f"soak-{run_id}-{number}")
    if number % SCHEDULED_EVERY == 0:  # scheduled a little ahead: released while workers are killed
        record.asked_delay_ms = SCHEDULED_DELAYS_MS[(number // SCHEDULED_EVERY) % len(SCHEDULED_DELAYS_MS)]
    ledger.add_publish(record)
    body: dict[str, Any] = {
        "eventType": "soak.tick",
        "eventVersion": "1",
        "payload": {"number": number},
        "correlationId": record.correlation_id,
    }
    if record.asked_delay_ms is not None:
        body["deliverAfterMs"] = record.asked_delay_ms
    elif number % 2:
        record.ordering_key = body["orderingKey"] = f"key-{(number // 2) % ORDERING_KEYS}"
    response = api.call(
        "POST",
        f"/rooms/{room_id}/messages",
        body,
        headers={"Idempotency-Key": record.idempotency_key},
        on_answer=record.statuses.append,
        retry_conflicts=True,
        deadline_seconds=PUBLISH_DEADLINE_SECONDS,
    )
    if response.status_code != 202:
        record.refusal = f"{response.status_code} {response.text[:300]}"
        return
    accepted = response.json()
    record.destinations = tuple(accepted["destinations"])
    record.published_at = epoch_seconds(accepted["publishedAt"])
    record.deliver_at = epoch_seconds(accepted["deliverAt"]) if accepted.get("deliverAt") else None
    record.message_id = accepted["messageId"]


def kill_workers(stack: LocalStack, settings: SoakSettings, ledger: Ledger, stop: threading.Event) -> None:
    """Now and then, SIGKILL a worker of a function (by weight) while it runs an invocation."""
    rng = random.Random(settings.seed)
    functions = sorted(f for f in stack.functions if f not in NEVER_KILLED)
    weights = [KILL_WEIGHTS.get(f, OTHER_KILL_WEIGHT) for f in functions]
    while not stop.wait(rng.uniform(*settings.kill_every_seconds)):
        function_id = rng.choices(functions, weights)[0]
        aim_until = time.monotonic() + KILL_AIM_SECONDS
        while time.monotonic() < aim_until and not stop.is_set():
            killed_at = time.time()
            pid = stack.functions[function_id].kill_worker(rng)
            if pid is not None:
                ledger.add_kill(Kill(killed_at, function_id, pid))
                break
            time.sleep(0.01)
        else:
            ledger.add_missed_kill(function_id)


def watch(api: SoakApi, rooms: list[str], stop: threading.Event) -> None:
    """An operator's dashboard: the newest messages of a room every second (management traffic to kill)."""
    for room_id in itertools.cycle(rooms):
        if stop.wait(1.0):
            return
        api.json("GET", f"/rooms/{room_id}/messages", params={"limit": 20})


# -- the run ---------------------------------------------------------------------------------------


@dataclass
class Topology:
    rooms: dict[str, str] = field(default_factory=dict)  # room id -> name
    pull: list[tuple[PullPlan, str, str]] = field(default_factory=list)  # plan, room id, subscription id
    secrets: dict[str, str] = field(default_factory=dict)  # PUSH subscription id -> signing secret


def build(api: SoakApi, ledger: Ledger, seed: int, servers: contextlib.ExitStack) -> Topology:
    """The rooms and subscriptions, each PUSH one with a webhook server of its own."""
    topology = Topology()
    for room_plan in ROOMS:
        room = api.json("POST", "/rooms", {"name": f"soak-{room_plan.name}", **room_plan.policy})
        topology.rooms[room["id"]] = room_plan.name
        for plan in room_plan.subscriptions:
            fields: dict[str, Any]
            if isinstance(plan, PushPlan):
                server = servers.enter_context(
                    WebhookReceiver(webhook_script(plan, seed, ledger, topology.secrets), clock=time.time)
                )
                fields = {"type": "PUSH", "pushUrl": server.url("/hook"), "timeoutMs": plan.timeout_ms}
            else:
                fields = {"type": "PULL", "ackWaitMs": plan.ack_wait_ms}
            if plan.ordered:  # a dead message is skipped: the drain ends every delivery
                fields |= {"ordered": True, "onDeadKey": "skip"}
            subscription = api.json("POST", f"/rooms/{room['id']}/subscriptions", fields)
            if isinstance(plan, PushPlan):
                topology.secrets[subscription["id"]] = subscription["signingSecret"]
                never_succeeds = plan.answers.get("ok", 0) == 0
            else:
                topology.pull.append((plan, room["id"], subscription["id"]))
                never_succeeds = plan.actions.get("ack", 0) == 0
            ledger.add_destination(
                Destination(
                    subscription_id=subscription["id"],
                    room_id=room["id"],
                    name=plan.name,
                    kind=subscription["type"],
                    delivery_attempts=int(room_plan.policy["deliveryAttempts"]),
                    expires=bool(room_plan.policy.get("messageExpirationMs")),
                    never_succeeds=never_succeeds,
                    ack_wait_seconds=plan.ack_wait_ms / 1000 if isinstance(plan, PullPlan) else 0.0,
                    ordered=plan.ordered,
                )
            )
    return topology


def unsettled(api: SoakApi, topology: Topology, ledger: Ledger) -> list[str]:
    """The accepted (message, destination) pairs not yet delivered, dead or expired."""
    statuses = {
        message["messageId"]: {d["subscriptionId"]: d["status"] for d in message["deliveries"]}
        for room_id in topology.rooms
        for message in api.pages(f"/rooms/{room_id}/messages", "messages")
    }
    return [
        f"{publish.message_id} -> {subscription_id}"
        for publish in ledger.publishes
        if publish.message_id is not None
        for subscription_id in publish.destinations
        if statuses.get(publish.message_id, {}).get(subscription_id) not in ("delivered", "dead", "expired")
    ]


def final_state(api: SoakApi, topology: Topology, ledger: Ledger) -> FinalState:
    accepted = [p for p in ledger.publishes if p.message_id is not None]
    missing: set[str] = set()

    def read(publish: Publish) -> tuple[str, dict[str, Any] | None]:
        assert publish.message_id is not None
        response = api.call("GET", f"/rooms/{publish.room_id}/messages/{publish.message_id}")
        if response.status_code == 404:
            missing.add(publish.message_id)
            return publish.message_id, None
        if response.status_code != 200:
            raise SoakError(f"message {publish.message_id}: {response.status_code} {response.text[:300]}")
        status: dict[str, Any] = response.json()
        return publish.message_id, status

    with ThreadPoolExecutor(max_workers=4) as pool:
        statuses = {m: s for m, s in pool.map(read, accepted) if s is not None}
    dead_letters = {
        subscription_id: {
            letter["messageId"]
            for letter in api.pages(
                f"/rooms/{destination.room_id}/subscriptions/{subscription_id}/dead-letters", "deadLetters"
            )
        }
        for subscription_id, destination in ledger.destinations.items()
    }
    room_messages = {
        room_id: api.pages(f"/rooms/{room_id}/messages", "messages") for room_id in topology.rooms
    }
    return FinalState(
        statuses, missing, dead_letters, room_messages, _unrecorded_attempts(api, ledger, statuses)
    )


def _unrecorded_attempts(
    api: SoakApi, ledger: Ledger, statuses: dict[str, dict[str, Any]]
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """roomcast's attempt history of each PUSH destination that did not end delivered although its
    subscriber answered a request 2xx in time (what the ledger needs to tell why)."""
    rooms = {p.message_id: p.room_id for p in ledger.publishes if p.message_id is not None}
    wanted = {
        (r.subscription_id, r.message_id)
        for r in ledger.webhook_requests
        if r.succeeded
        and r.message_id in statuses
        and any(
            d["subscriptionId"] == r.subscription_id and d["status"] != "delivered"
            for d in statuses[r.message_id]["deliveries"]
        )
    }
    found = {}
    for subscription_id, message_id in sorted(wanted):
        response = api.call(
            "GET",
            f"/rooms/{rooms[message_id]}/messages/{message_id}/attempts",
            params={"subscriptionId": subscription_id},
        )
        if response.status_code != 200:
            raise SoakError(f"attempts of {message_id}: {response.status_code} {response.text[:300]}")
        found[(subscription_id, message_id)] = response.json()["attempts"]
    return found


@contextlib.contextmanager
def timed_invocations(stack: LocalStack, function_id: str) -> Iterator[list[float]]:
    """How long each invocation of the function takes, while the context lasts: a push batch that
    outlasts the queue's visibility timeout is handed out again (duplicates without a kill)."""
    function = stack.functions[function_id]
    durations: list[float] = []

    def invoke(event: Any) -> Any:
        started = time.monotonic()
        try:
            return LocalFunction.invoke(function, event)
        finally:
            durations.append(time.monotonic() - started)

    function.invoke = invoke  # type: ignore[method-assign]
    try:
        yield durations
    finally:
        del function.invoke


def run_soak(stack: LocalStack, api_key: str, settings: SoakSettings) -> Report:
    """Publish with kills for ``publishing_seconds``, drain, check; the report (never raises for a
    finding: findings are in ``report.lost`` and ``report.problems``)."""
    ledger = Ledger()
    api = SoakApi(stack.api_url, api_key, ledger)
    actors = Actors()
    run_id = f"{settings.seed}-{int(time.time())}"
    with contextlib.ExitStack() as servers:
        push_durations = servers.enter_context(timed_invocations(stack, "PushFunction"))
        topology = build(api, ledger, settings.seed, servers)
        rooms = list(topology.rooms)
        for plan, room_id, subscription_id in topology.pull:
            consumer = functools.partial(
                consume, api, plan, room_id, subscription_id, settings.seed, ledger, actors.stop_consuming
            )
            actors.start("consumers", plan.name, consumer)
        started = time.monotonic()
        publish_all(api, rooms, settings, ledger, run_id, actors)
        actors.start("faults", "killer", lambda: kill_workers(stack, settings, ledger, actors.stop_faults))
        actors.start("faults", "watcher", lambda: watch(api, rooms, actors.stop_faults))
        actors.stop_faults.wait(settings.publishing_seconds)
        actors.stop_faults.set()
        publishing_done = time.monotonic()
        actors.join("faults", 30)
        # Publishes held up by a kill finish meanwhile (409 until the in-progress record expires).
        deadline = publishing_done + PUBLISH_DEADLINE_SECONDS + settings.drain_timeout_seconds
        left = ["publishers still running"]
        while left and time.monotonic() < deadline and not actors.errors:
            time.sleep(1.0)
            publishing = actors.running("publishers")
            left = (
                [f"{publishing} publishers still running"] if publishing else unsettled(api, topology, ledger)
            )
        drained = time.monotonic()
        actors.stop_publishing.set()
        actors.join("publishers", 10)
        actors.stop_consuming.set()
        actors.join("consumers", 30)
        final = final_state(api, topology, ledger)
    report = ledger.check(final, crashed_invocations=sum(f.crashes for f in stack.functions.values()))
    report.stuck_keys = stuck_keys(stack, ledger.publishes, final)
    order = order_figures(
        ledger.destinations, ledger.publishes, ledger.webhook_requests, ledger.handouts, ledger.acks
    )
    report.ordered_keys, report.ordered_messages = order.keys, order.messages
    report.problems += order.problems
    report.longest_push_invocation_seconds = max(push_durations, default=0.0)
    report.publishing_seconds = publishing_done - started
    report.draining_seconds = drained - publishing_done
    report.problems += [f"a soak client died: {error}" for error in actors.errors]
    if left:
        report.problems.append(f"not drained in time: {len(left)} unsettled, {left[:5]}")
    return report


def seconds_needed(settings: SoakSettings) -> float:
    """An upper bound of ``run_soak``'s duration, for the test's timeout."""
    return settings.publishing_seconds + PUBLISH_DEADLINE_SECONDS + settings.drain_timeout_seconds + 120
