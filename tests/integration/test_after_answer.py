"""Work after the answer (roomcast.platform.after_answer): the internal extension against Lambda's
Extensions API as the local stack serves it on loopback (roomcast_dev.lambda_extensions), and the
publish function's sends-done mark written after its answer, against moto."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.client import BaseClient

from roomcast.platform import after_answer
from roomcast.platform.after_answer import EXTENSION_NAME
from roomcast.platform.config import load_settings
from roomcast_dev.lambda_extensions import LocalExtensionsApi
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event


class _Context(FakeLambdaContext):
    def __init__(self, request_id: str) -> None:
        self.aws_request_id = request_id


def _deadline_ms(seconds: float) -> int:
    return int((time.time() + seconds) * 1000)


@pytest.fixture
def extensions_api() -> Iterator[LocalExtensionsApi]:
    api = LocalExtensionsApi()
    yield api
    api.close()
    after_answer.stop_extension()


@pytest.fixture
def registered(extensions_api: LocalExtensionsApi) -> LocalExtensionsApi:
    """The API with the extension registered and its init done."""
    assert after_answer.start_extension(extensions_api.address)
    assert extensions_api.wait_until_ready(5)
    assert extensions_api.registered == [EXTENSION_NAME]
    return extensions_api


def _handler_handing_over(*works: Callable[[], object]) -> Callable[[Any, Any], str]:
    def handler(event: Any, context: Any) -> str:
        for work in works:
            after_answer.later(work)
        return "answer"

    return after_answer.answer_first(handler)


def test_the_answer_comes_while_the_work_handed_over_still_runs(registered: LocalExtensionsApi) -> None:
    # Given: an invocation whose work waits for a signal
    release, done = threading.Event(), threading.Event()

    def work() -> None:
        release.wait(10)
        done.set()

    handler = _handler_handing_over(work)
    registered.begin_invocation("r-1", _deadline_ms(30))

    # When
    answer = handler({}, _Context("r-1"))

    # Then: answered, the invocation still open until the work is done, then over
    assert answer == "answer"
    assert not done.is_set()
    assert not registered.wait_until_done(0.2)
    release.set()
    assert registered.wait_until_done(10)
    assert done.is_set()


def test_work_that_fails_neither_stops_the_next_work_nor_keeps_the_invocation_open(
    registered: LocalExtensionsApi,
) -> None:
    # Given
    done: list[str] = []
    handler = _handler_handing_over(lambda: 1 / 0, lambda: done.append("second"))

    # When: two invocations, one after the other
    for request_id in ("r-1", "r-2"):
        registered.begin_invocation(request_id, _deadline_ms(30))
        handler({}, _Context(request_id))
        assert registered.wait_until_done(10)

    # Then
    assert done == ["second", "second"]


def test_an_invocation_whose_handler_hands_nothing_over_ends_at_its_deadline(
    registered: LocalExtensionsApi,
) -> None:
    # Given: an invocation whose handler never runs (Lambda would time it out)
    registered.begin_invocation("r-lost", _deadline_ms(0.3))

    # When / Then: the extension asks for its next event once the deadline has passed, not before
    assert not registered.wait_until_done(0.1)
    assert registered.wait_until_done(10)


@pytest.mark.parametrize("setting", ["true", "false"])
def test_the_publish_function_registers_the_extension_at_its_import_as_its_template_says(
    extensions_api: LocalExtensionsApi,
    stack_model: StackModel,
    monkeypatch: pytest.MonkeyPatch,
    setting: str,
) -> None:
    # Given: the publish function's environment from the template, on a Lambda of the API's
    environment = stack_model.functions["PublishFunction"].environment
    assert environment["AFTER_ANSWER_EXTENSION"] == "true"  # PublishAfterAnswer's default
    for name, value in {**environment, "AFTER_ANSWER_EXTENSION": setting}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_LAMBDA_RUNTIME_API", extensions_api.address)
    load_settings.cache_clear()

    # When
    started = after_answer.start_as_configured()

    # Then
    load_settings.cache_clear()
    assert started is (setting == "true")
    assert extensions_api.registered == ([EXTENSION_NAME] if setting == "true" else [])


def test_without_an_extension_the_work_is_done_before_the_answer() -> None:
    # Given: no Extensions API (not on Lambda)
    assert not after_answer.start_extension("")
    done: list[str] = []

    # When
    _handler_handing_over(lambda: done.append("work"))({}, _Context("r-1"))

    # Then
    assert done == ["work"]


def test_outside_an_invocation_later_does_the_work_at_once() -> None:
    done: list[str] = []
    after_answer.later(lambda: done.append("work"))
    assert done == ["work"]


def test_a_registration_after_the_init_is_refused_and_work_is_done_before_the_answer(
    extensions_api: LocalExtensionsApi,
) -> None:
    # Given: the function was already invoked
    extensions_api.begin_invocation("r-1", _deadline_ms(30))

    # When
    started = after_answer.start_extension(extensions_api.address)

    # Then
    assert not started
    done: list[str] = []
    _handler_handing_over(lambda: done.append("work"))({}, _Context("r-2"))
    assert done == ["work"]


def test_once_the_extension_has_ended_work_is_done_before_the_answer(registered: LocalExtensionsApi) -> None:
    # Given: the API sent SHUTDOWN and the thread ended
    registered.close()
    after_answer.stop_extension()
    done: list[str] = []

    # When
    _handler_handing_over(lambda: done.append("work"))({}, _Context("r-1"))

    # Then
    assert done == ["work"]


def test_a_publish_answers_before_its_sends_done_mark_and_log_are_written(
    registered: LocalExtensionsApi,
    function_handler: Callable[[str], Handler],
    aws_calls: Counter[str],
) -> None:
    # Given: a room with a PUSH subscription, and every AWS call of the extension's thread held
    manage, publish = function_handler("ManagementFunction"), function_handler("PublishFunction")
    room = _created(manage, "/rooms", {"name": "orders"})
    _created(manage, f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/"})
    held = threading.Event()
    original = getattr(BaseClient, "_make_api_call")  # noqa: B009 - private, untyped in the stubs

    def holding_the_extensions_calls(client: Any, operation: str, params: Any) -> Any:
        if threading.current_thread().name == EXTENSION_NAME:
            held.wait(10)
        return original(client, operation, params)

    message = {"eventType": "order.created", "eventVersion": "1", "payload": {"order": 1}}
    setattr(BaseClient, "_make_api_call", holding_the_extensions_calls)  # noqa: B010
    try:
        # When
        aws_calls.clear()
        registered.begin_invocation("r-publish", _deadline_ms(30))
        answer = publish(api_event("POST", f"/rooms/{room['id']}/messages", message), _Context("r-publish"))

        # Then: answered with the message stored and sent, the mark and the log not yet written
        assert answer["statusCode"] == 202, answer
        assert aws_calls["BatchWriteItem"] == 1  # the message with its first delivery record
        assert aws_calls["PutRecordBatch"] == 0
        assert not registered.wait_until_done(0.2)
    finally:
        held.set()
        setattr(BaseClient, "_make_api_call", original)  # noqa: B010
    assert registered.wait_until_done(10)
    assert aws_calls["BatchWriteItem"] == 2  # the sends-done mark
    assert aws_calls["PutRecordBatch"] == 1  # the delivery log's records


def _created(handler: Handler, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = handler(api_event("POST", path, body), FakeLambdaContext())
    assert response["statusCode"] == 201, response
    created: dict[str, Any] = json.loads(response["body"])
    return created
