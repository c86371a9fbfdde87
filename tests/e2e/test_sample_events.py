"""Every events/*.json file drives its function in the local stack's Lambda workers (each with its
template environment, as Lambda gives it) and gets exactly the answer tests/support.py expects."""

from __future__ import annotations

from pathlib import Path

import pytest

from roomcast_dev.openapi import merged_document
from roomcast_dev.stack import LocalStack
from tests.support import (
    actual_response,
    expected_response,
    function_of,
    load_event,
    sample_events,
    seed_sample_tenant,
)


@pytest.mark.parametrize("event_file", sample_events(), ids=lambda path: path.name)
def test_sample_event_drives_its_function(event_file: Path, empty_stack: LocalStack) -> None:
    # Given
    seed_sample_tenant(
        empty_stack.output("TableName"),
        empty_stack.output("PullQueuePrefix"),
        dynamodb=empty_stack.client("dynamodb"),
        sqs=empty_stack.client("sqs"),
    )
    assert empty_stack.model is not None

    # When
    result = empty_stack.invoke(function_of(event_file), load_event(event_file))

    # Then
    assert actual_response(result) == expected_response(event_file, merged_document(empty_stack.model))
