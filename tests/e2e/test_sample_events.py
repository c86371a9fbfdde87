"""Every events/*.json file drives its function in the local stack's Lambda workers (template environment)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roomcast_dev.stack import LocalStack
from tests.support import SAMPLE_TENANT, function_of, load_event, sample_events, seed_sample_tenant


@pytest.mark.parametrize("event_file", sample_events(), ids=lambda path: path.name)
def test_sample_event_drives_its_function(event_file: Path, empty_stack: LocalStack) -> None:
    # Given
    seed_sample_tenant(
        empty_stack.output("TableName"),
        empty_stack.output("PullQueuePrefix"),
        dynamodb=empty_stack.client("dynamodb"),
        sqs=empty_stack.client("sqs"),
    )

    # When
    result = empty_stack.invoke(function_of(event_file), load_event(event_file))

    # Then
    if function_of(event_file) == "AuthorizerFunction":
        assert result == {"isAuthorized": True, "context": {"tenantId": SAMPLE_TENANT}}
    elif function_of(event_file) == "PushFunction":
        assert result == {"batchItemFailures": []}
    else:
        assert result["statusCode"] in (200, 201, 202), result
        assert json.loads(result["body"])
