"""Every events/*.json file drives its function in the local stack's Lambda workers (template environment)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from roomcast.credentials import hash_api_key
from roomcast.dal.repository import Repository
from roomcast_dev.stack import LocalStack

from tests.support import SAMPLE_API_KEY, SAMPLE_TENANT, function_of, load_event, sample_events


@pytest.mark.parametrize("event_file", sample_events(), ids=lambda path: path.name)
def test_sample_event_drives_its_function(event_file: Path, empty_stack: LocalStack) -> None:
    # Given
    Repository(empty_stack.output("TableName"), client=empty_stack.client("dynamodb")).put_api_key(
        hash_api_key(SAMPLE_API_KEY), SAMPLE_TENANT, "2026-11-22T00:00:00.000Z"
    )

    # When
    result = empty_stack.invoke(function_of(event_file), load_event(event_file))

    # Then
    if function_of(event_file) == "AuthorizerFunction":
        assert result == {"isAuthorized": True, "context": {"tenantId": SAMPLE_TENANT}}
    else:
        assert result["statusCode"] in (200, 201), result
        assert json.loads(result["body"])
