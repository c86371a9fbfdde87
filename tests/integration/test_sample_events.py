"""Every events/*.json file (the events `sam local invoke -e` takes) drives its handler in-process
and gets exactly the answer tests/support.py expects of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from roomcast_dev.openapi import merged_document
from roomcast_dev.samples import seed_sample_tenant
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import (
    EVENTS_DIR,
    FakeLambdaContext,
    actual_response,
    expected_response,
    function_of,
    load_event,
    sample_events,
)


@pytest.mark.parametrize("event_file", sample_events(), ids=lambda path: path.name)
def test_sample_event_drives_its_handler(
    event_file: Path,
    function_handler: Callable[[str], Handler],
    stack_model: StackModel,
    context: FakeLambdaContext,
) -> None:
    # Given: the sample key is known, for the sample tenant with its room and subscriptions
    handler = function_handler(function_of(event_file))
    seed_sample_tenant(
        stack_model.tables["Table"]["TableName"],
        stack_model.functions["ManagementFunction"].environment["PULL_QUEUE_PREFIX"],
    )

    # When
    result = handler(load_event(event_file), context)

    # Then
    assert actual_response(result) == expected_response(event_file, merged_document(stack_model))


def test_every_function_has_a_sample_event(stack_model: StackModel) -> None:
    covered = {function_of(path) for path in sample_events()}
    assert set(stack_model.functions) <= covered


def test_authorizer_refuses_an_unknown_key(
    function_handler: Callable[[str], Handler], context: FakeLambdaContext
) -> None:
    # Given: no key stored
    handler = function_handler("AuthorizerFunction")

    # When
    result = handler(load_event(EVENTS_DIR / "authorizer-request.json"), context)

    # Then
    assert result == {"isAuthorized": False}
