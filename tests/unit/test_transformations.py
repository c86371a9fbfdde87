"""Transformations (roomcast.transformations): what a handler may return, how versions move, and
the sandbox's limits — in a real V8 isolate, as a delivery runs them."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, strategies as st

from roomcast.platform.errors import InvalidRequest
from roomcast.transformations.model import (
    TIME_LIMIT_MS,
    Transformation,
    TransformationFailed,
    Transformed,
    changed_to,
    rolled_back,
)
from roomcast.transformations.sandbox import check_source, run_transformation
from roomcast.transformations.shape import WebhookShape, read_output

HOOK = WebhookShape("order.created", {"orderId": 1}, "https://hooks.example.com/in")
QUEUE = WebhookShape("order.created", {"orderId": 1})


def _run(body: str, given: WebhookShape = HOOK) -> Transformed:
    return run_transformation(f"function handler(webhook) {{ {body} }}", given)


def test_a_handler_renames_a_field() -> None:
    changed = _run("webhook.payload = {id: webhook.payload.orderId}; return webhook;")
    assert changed == Transformed({"id": 1}, False, HOOK.url, "POST", {})


def test_a_handler_that_returns_nothing_sends_the_webhook_it_changed_in_place() -> None:
    assert _run("webhook.payload.extra = [1, 2];").payload == {"orderId": 1, "extra": [1, 2]}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("while (true) {}", f"ran past its {TIME_LIMIT_MS} ms limit"),
        ("throw new RangeError('too far');", "threw: RangeError: too far"),
        ("return 5;", "handler returned a number, not the webhook object"),
        ("return null;", "handler returned null, not the webhook object"),
        ("return {eventType: 'other', payload: 1};", "eventType cannot be changed"),
        ("return {payload: 1, extra: true};", "handler returned unknown fields: extra"),
        ("return {cancel: 'yes', payload: 1};", "cancel must be true or false"),
        ("return {payload: undefined};", "handler returned no payload"),
        ("webhook.method = 'DELETE'; return webhook;", "method must be one of POST, PUT"),
        (
            "webhook.headers['webhook-signature'] = 'v1,x'; return webhook;",
            "header 'webhook-signature' is set by roomcast",
        ),
        (
            "webhook.headers['X-A'] = 'line\\nbreak'; return webhook;",
            "header 'X-A' must be printable ASCII, at most 1024 characters",
        ),
    ],
)
def test_a_run_that_fails_says_why(body: str, reason: str) -> None:
    with pytest.raises(TransformationFailed) as failed:
        _run(body)
    assert str(failed.value) == reason


def test_a_handler_that_takes_too_much_memory_is_stopped_by_the_memory_limit() -> None:
    # Given: time enough that only the heap can stop it, however busy the machine
    hog = "let a = []; while (true) a.push(new Array(1e5).fill(1));"

    # When / Then
    with pytest.raises(TransformationFailed) as failed:
        run_transformation(f"function handler(webhook) {{ {hog} }}", HOOK, time_limit_ms=30_000)
    assert str(failed.value) == "ran past its 16 MiB memory limit"


def test_a_loop_is_stopped_within_its_limit() -> None:
    started = time.monotonic()
    with pytest.raises(TransformationFailed):
        _run("while (true) {}")
    # The limit plus making the isolate; a generous bound for a busy machine, far below "forever".
    assert time.monotonic() - started < 5


def test_a_loop_at_the_top_level_is_stopped_too() -> None:
    with pytest.raises(TransformationFailed, match="ms limit"):
        run_transformation("while (true) {} function handler(w) { return w; }", HOOK)


def test_nothing_one_run_leaves_in_its_globals_reaches_the_next() -> None:
    polluting = "function handler(w) { Object.prototype.leak = 1; globalThis.seen = 1; return w; }"
    run_transformation(polluting, HOOK)
    probe = "function handler(w) { w.payload = [typeof globalThis.seen, ({}).leak === undefined]; return w; }"
    assert run_transformation(probe, HOOK).payload == ["undefined", True]


def test_an_aws_destination_has_no_url_method_or_headers() -> None:
    assert run_transformation("function handler(w) { return w; }", QUEUE) == Transformed({"orderId": 1})
    with pytest.raises(TransformationFailed, match="apply to webhooks only"):
        read_output(json.dumps({"payload": 1, "url": "https://x.example"}), QUEUE)


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("function handler(", "does not compile: SyntaxError: Unexpected end of input"),
        ("const handler = 42;", "does not define function handler(webhook)"),
        ("x.y = 1;", "threw: ReferenceError: x is not defined"),
        ("while (true) {}", f"ran past its {TIME_LIMIT_MS} ms limit"),
        ("// " + "x" * 65536, "is over 65536 bytes (UTF-8)"),
    ],
)
def test_a_source_is_checked_before_it_is_kept(source: str, problem: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        check_source(source)
    assert refused.value.code == "invalid_transformation"
    assert refused.value.details == [
        {"field": "body.transformation", "problem": problem, "type": "invalid_transformation"}
    ]


def test_an_arrow_function_is_a_handler_too() -> None:
    check_source("const handler = (webhook) => webhook;")


SOURCES = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


@given(st.lists(st.one_of(SOURCES.map(lambda s: ("set", s)), st.just(("rollback", None))), max_size=12))
def test_versions_only_count_up_and_a_rollback_swaps_the_two_kept(
    steps: list[tuple[str, str | None]],
) -> None:
    current: Transformation | None = None
    previous: Transformation | None = None
    seen: dict[int, str] = {}
    given_so_far = 0
    for step, source in steps:
        before = (current, previous)
        if step == "set":
            current, previous, given_so_far = changed_to(current, previous, source, "t", given_so_far)
            if source is None:
                assert current is None
            else:
                assert current is not None
                assert current.source == source
                if before[0] is None or before[0].source != source:
                    assert current.version > max((t.version for t in before if t is not None), default=0)
        elif previous is not None:
            current, previous = rolled_back(current, previous)
            assert (current, previous) == (before[1], before[0])
        for kept in (current, previous):
            if kept is not None:
                # A version always names one source
                assert seen.setdefault(kept.version, kept.source) == kept.source
