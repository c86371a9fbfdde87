"""The most rule work one request can cause (docs/decisions/0043-bounded-rule-work.md): each kind of
request with every rule a tenant writes at its limit — schemas at the cost limit, 200 subscriptions
with policies at the complexity limit, payloads as costly as a check may be — its CPU time measured
in this process (this thread's, the best of a few runs, the collector held off). ``make capacity``
turns it into the executions one tenant can hold; ``make bench`` prints it beside the budget."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from roomcast.event_types.model import InvalidSchema, check_payload, checked_schema, compile_schema
from roomcast.filters.index import PayloadIndex
from roomcast.filters.policy import FilterPolicy
from roomcast.platform import limits
from roomcast.platform.payloads import JsonValue

# A schema at the cost limit: 1,300 fractional numbers, each ~1.5 µs to compare with a number.
ENUM = [n + 0.5 for n in range(1_300)]
WORST_SCHEMA = {"type": "array", "items": {"enum": ENUM}}
# A policy at the complexity limit: 150 ranges on one key, matched against a long array of numbers.
WORST_POLICY = {"k": [{"numeric": [">", n, "<", n + 0.5]} for n in range(1, 151)]}
# A schema as costly to count as a schema may be (its counting stops at the limit and refuses it).
COSTLY_TO_COUNT = {
    "$defs": {f"d{n}": {"items": {"$ref": f"#/$defs/d{n + 1}"}, "minItems": 1} for n in range(600)}
    | {"d600": {"type": "string"}},
    "$ref": "#/$defs/d0",
}


@dataclass(frozen=True)
class RequestWork:
    """A kind of request, and the most CPU its rules took here (ms)."""

    request: str
    rule_cpu_ms: float
    what: str


def _cpu_ms(work: Callable[[], object], rounds: int = 3) -> float:
    gc.disable()
    try:
        best = float("inf")
        for _ in range(rounds):
            start = time.thread_time()
            work()
            best = min(best, time.thread_time() - start)
    finally:
        gc.enable()
    return best * 1000


def _worst_check() -> Callable[[], object]:
    saved = checked_schema("1", WORST_SCHEMA)
    compiled = compile_schema(saved.text, cost=saved.cost)
    payload: JsonValue = [ENUM[-1]] * (limits.SCHEMA_CHECK_BUDGET // saved.cost.worst - 1)  # all compared
    return lambda: check_payload(compiled, payload)


def _route_each(policies: list[FilterPolicy], payload: Any, messages: int) -> None:
    for _ in range(messages):
        _route(policies, payload)


def _route(policies: list[FilterPolicy], payload: Any) -> None:
    index = PayloadIndex()
    for policy in policies:
        policy.evaluate(payload, index)


def measure() -> list[RequestWork]:
    check = _worst_check()
    policies = [FilterPolicy.of(WORST_POLICY) for _ in range(limits.MAX_SUBSCRIPTIONS_PER_ROOM)]
    _route(policies, {"k": 1})  # compiled once per container, as the routing cache keeps them
    long_array = {"k": [n + 0.25 for n in range(14_000)]}  # ~115 KiB: a publish's payload limit
    small = {"k": 0.25}
    check_ms = _cpu_ms(check)
    route_ms = _cpu_ms(lambda: _route(policies, long_array))
    batch_checks = limits.SCHEMA_REQUEST_BUDGET // limits.SCHEMA_CHECK_BUDGET
    small_routes_ms = _cpu_ms(lambda: _route_each(policies, small, limits.MAX_PUBLISH_BATCH_MESSAGES))
    long_arrays = limits.MAX_PUBLISH_BATCH_BODY_BYTES // limits.MAX_PAYLOAD_BYTES
    create_ms = _cpu_ms(lambda: _save_costliest(limits.MAX_SCHEMA_VERSIONS), rounds=1)
    return [
        RequestWork("publish", check_ms + route_ms, "a check at its budget; 200 policies on a 115 KiB array"),
        RequestWork(
            "publish a batch",
            batch_checks * check_ms + max(long_arrays * route_ms, small_routes_ms),
            f"{batch_checks} checks at their budget (the batch's); 200 policies on {long_arrays} long arrays",
        ),
        RequestWork("filter dry run", route_ms, "200 policies on a 115 KiB array"),
        RequestWork("validate a payload", check_ms, "a check at its budget"),
        RequestWork(
            "save an event type",
            create_ms,
            f"{limits.MAX_SCHEMA_VERSIONS} schemas counted to the counting limit (and refused)",
        ),
    ]


def _save_costliest(versions: int) -> None:
    for _ in range(versions):
        with contextlib.suppress(InvalidSchema):
            checked_schema("1", COSTLY_TO_COUNT)


__all__ = ["RequestWork", "measure"]


# The budget of docs/decisions/0043-bounded-rule-work.md, per kind of request (ms of one core).
BUDGET_MS = {
    "publish": 100,
    "publish a batch": 250,
    "filter dry run": 50,
    "validate a payload": 50,
    "save an event type": 1_500,
}


def run() -> dict[str, bool]:
    print("\n## Rule work at the limits (ms of one core; ADR 0043)\n")
    verdicts = {}
    for work in measure():
        budget = BUDGET_MS[work.request]
        print(f"{work.request:<22} {work.rule_cpu_ms:>8.1f} ms  (budget {budget} ms)  {work.what}")
        verdicts[f"rules of a {work.request} at the limits <= {budget} ms"] = work.rule_cpu_ms <= budget
    return verdicts
