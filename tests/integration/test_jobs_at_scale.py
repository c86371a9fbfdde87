"""Bulk actions run as jobs (issue 24): each request does a fixed, small number of AWS calls
whatever the data holds, answers 202 with the job, and the outbox function finishes the job a page
at a time, each step handing the rest on through its own queue.

`make test` runs it on 300 messages (three pages: a first, a middle and a last): moto ends about
25-45 deliveries a second here, and what grows with the data is the job's, which is paged the
same at any size.
``ROOMCAST_JOB_MESSAGES=10000`` runs the issue's 10,000 (about 17 minutes; run with ``-s`` to see
each request's time and calls, ``-o timeout=2400``): the figures are in docs/scaling.md. The data is
written straight to the table (as the stores write it), not published through SQS."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from outbox_worker.jobs import JobRunner
from roomcast.dead_letters.ports import DeadLetter
from roomcast.dead_letters.store import DeadLetterTable
from roomcast.messages.envelope import first_envelope
from roomcast.messages.model import Message
from roomcast.messages.store import MessageTable
from roomcast.platform.clock import iso_from_ms
from roomcast.platform.config import load_settings
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import run_outbox_tasks
from tests.support import FakeLambdaContext, api_event

MESSAGES = int(os.environ.get("ROOMCAST_JOB_MESSAGES", "300"))
# What a request that starts a job may call, whatever the data holds: read the room and the
# subscription, write a watermark or a mark, store the job, send its task (and the sweep's).
MAX_REQUEST_CALLS = 8
PUBLISHED_MS = 1_795_435_200_000  # 2026-11-22T10:00:00Z


def _call(handler: Handler, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return response["statusCode"], json.loads(response["body"]) if response.get("body") else None


def _message(room_id: str, number: int, destinations: tuple[str, ...]) -> Message:
    published_ms = PUBLISHED_MS + number
    return Message(
        f"msg_{number:032x}",
        "acme",
        room_id,
        "order.created",
        "1",
        f"order-{number}",
        {"n": number},
        iso_from_ms(published_ms),
        published_ms,
        None,
        destinations,
    )


def _seed(room_id: str, push_id: str, pull_id: str) -> list[str]:
    """MESSAGES messages owed to the PUSH subscription (pending), and each a dead letter of the PULL
    subscription, one millisecond apart; their dead-at times, in order."""
    table = load_settings().table_name
    messages = [_message(room_id, n, (push_id,)) for n in range(MESSAGES)]
    failed = MessageTable(table).put_messages([(m, []) for m in messages])
    assert failed == {}
    letters = DeadLetterTable(table)
    dead_at = [m.published_at for m in messages]

    def put(pair: tuple[Message, str]) -> None:
        message, died = pair
        letters.put(DeadLetter(first_envelope(message, pull_id), "HTTP 410", died, 1))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(put, zip(messages, dead_at, strict=True)))
    return dead_at


def _started(handler: Handler, aws_calls: Counter[str], method: str, path: str, body: Any = None) -> Any:
    """Start a job: the request's answer (202, the running job) and the AWS calls it made."""
    aws_calls.clear()
    started = time.perf_counter()
    status, job = _call(handler, method, path, body)
    answered_s = time.perf_counter() - started
    assert (status, job["state"]) == (202, "running")
    assert sum(aws_calls.values()) <= MAX_REQUEST_CALLS, aws_calls
    # Shown with -s (the figures of the 10,000-message run in docs/scaling.md come from here).
    calls = sum(aws_calls.values())
    print(f"{method} {path.rsplit('/', 1)[-1]}: 202 in {answered_s:.3f} s, {calls} AWS calls")
    return job


def test_clear_all_replay_by_range_purge_and_room_deletion_are_jobs_done_page_by_page(
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    aws_calls: Counter[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given: a room whose PUSH subscription owes MESSAGES messages, and whose PULL subscription has
    # as many dead letters; each run of a job does one step, then hands the rest on
    monkeypatch.setattr(JobRunner, "budget_seconds", 0.0)
    manage = function_handler("ManagementFunction")
    _, room = _call(manage, "POST", "/rooms", {"name": "busy"})
    base = f"/rooms/{room['id']}/subscriptions"
    _, push = _call(manage, "POST", base, {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/"})
    _, pull = _call(manage, "POST", base, {"type": "PULL"})
    dead_at = _seed(room["id"], push["id"], pull["id"])
    outbox = function_handler("OutboxFunction")
    manage = function_handler("ManagementFunction")

    def finished(job: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        run_outbox_tasks(stack_model, outbox)
        _, read = _call(manage, "GET", f"/jobs/{job['id']}")
        assert read["state"] == "succeeded", read
        took_s = time.perf_counter() - started
        print(f"  job {read['kind']}: {read['state']} in {took_s:.0f} s, {read['counts']}")
        return dict(read["counts"])

    # When / Then: retry now of every delivery walks them all (pending, none retrying: none sent early)
    retried = _started(manage, aws_calls, "POST", f"{base}/{push['id']}/deliveries/retry")
    counts = finished(retried)
    assert (counts["examined"], counts["retried"]) == (MESSAGES, 0)
    # and Clear All ends every one of them
    cleared = _started(manage, aws_calls, "DELETE", f"{base}/{push['id']}/deliveries")
    assert finished(cleared) | {"purged": None} == {
        "examined": MESSAGES,
        "cleared": MESSAGES,
        "purged": None,
        "replayed": None,
        "alreadyReplaying": None,
        "subscriptionsDeleted": None,
        "retried": None,
    }
    # a range replays only the letters that died within it (walking all of them)
    window = {"since": dead_at[100], "until": dead_at[199]}
    replayed = _started(manage, aws_calls, "POST", f"{base}/{pull['id']}/dead-letters/replay", window)
    counts = finished(replayed)
    assert (counts["examined"], counts["replayed"], counts["alreadyReplaying"]) == (MESSAGES, 100, 0)
    # a purge deletes the rest
    purged = _started(manage, aws_calls, "DELETE", f"{base}/{pull['id']}/dead-letters")
    assert finished(purged)["purged"] == MESSAGES - 100
    # and the room goes with both subscriptions
    deleted = _started(manage, aws_calls, "DELETE", f"/rooms/{room['id']}")
    assert finished(deleted)["subscriptionsDeleted"] == 2
    gone = manage(api_event("GET", f"/rooms/{room['id']}", tenant="acme"), FakeLambdaContext())
    assert gone["statusCode"] == 404
