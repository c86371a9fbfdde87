"""The local stack enforces each function's template role (issue 25, ADR 0036): the same stack with
one grant removed fails the calls that need it, and only those; the template as it is passes them
(every other end-to-end test runs with enforcement on)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
import requests
from samtranslator.yaml_helper import yaml_parse

from roomcast.catalog.store import CatalogTable
from roomcast_dev.keys import create_api_key
from roomcast_dev.local_iam import function_roles
from roomcast_dev.moto_iam import refusals
from roomcast_dev.stack import LOCAL_PARAMETERS, LocalStack
from roomcast_dev.template import TEMPLATE_PATH

# The grant removed: the publish function's statement on the table itself.
TABLE = {"Fn::GetAtt": ["Table", "Arn"]}


def _without_publish_table_grant(template_text: str) -> str:
    """The template (as JSON, which CloudFormation reads too) without that statement."""
    template = yaml_parse(template_text)
    policies = template["Resources"]["PublishFunction"]["Properties"]["Policies"]
    statements = [s for p in policies if isinstance(p, dict) for s in p.get("Statement", [])]
    on_table = [s for s in statements if s["Resource"] == TABLE]
    assert len(on_table) == 1, "the publish function's table grant changed: update this test"
    for policy in policies:
        if isinstance(policy, dict) and on_table[0] in policy.get("Statement", []):
            policy["Statement"].remove(on_table[0])
    return json.dumps(template, indent=1)


@pytest.fixture(scope="module")
def stack_missing_a_grant() -> Iterator[LocalStack]:
    """A second local stack whose template lacks the publish function's table grant (written next
    to template.yaml, whose folder the functions' code paths are relative to)."""
    path = TEMPLATE_PATH.with_name(f".template-iam-proof-{uuid.uuid4().hex[:8]}.json")
    path.write_text(_without_publish_table_grant(TEMPLATE_PATH.read_text(encoding="utf-8")), encoding="utf-8")
    stack = LocalStack(stack_name="roomcast-iam-proof", template_path=path, function_concurrency=1)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()
        path.unlink(missing_ok=True)


def test_a_function_without_a_grant_fails_the_calls_that_need_it_and_only_those(
    stack_missing_a_grant: LocalStack,
) -> None:
    # Given: a tenant and a room, made through the management function (its grants are whole)
    stack = stack_missing_a_grant
    key = create_api_key(CatalogTable(stack.output("TableName"), client=stack.client("dynamodb")), "proof")
    headers = {"Authorization": f"Bearer {key}"}
    room = requests.post(f"{stack.api_url}/rooms", json={"name": "proof"}, headers=headers, timeout=30)
    assert room.status_code == 201, room.text

    # When: a publish, whose function may no longer read or write the table
    published = requests.post(
        f"{stack.api_url}/rooms/{room.json()['id']}/messages",
        json={"eventType": "order.created", "eventVersion": "1", "payload": {}},
        headers=headers,
        timeout=30,
    )

    # Then: refused by the emulator as AWS would refuse it, so the request fails; nothing stored
    assert published.status_code == 500, published.text
    refused = {(role, action.partition(":")[0], resource) for role, action, resource in refusals()}
    table = f"arn:aws:dynamodb:us-east-1:123456789012:table/{stack.output('TableName')}"
    assert refused == {("roomcast-iam-proof-PublishFunction", "dynamodb", table)}
    listed = requests.get(f"{stack.api_url}/rooms/{room.json()['id']}/messages", headers=headers, timeout=30)
    assert listed.json()["messages"] == []


def test_the_roles_are_the_templates_with_sam_policy_templates_expanded() -> None:
    # When
    roles = function_roles(TEMPLATE_PATH, "roomcast-local", "us-east-1", LOCAL_PARAMETERS, lambda name: name)

    # Then: the statements resolved on this stack's table and its indexes, SAM's policy templates
    # and managed policies expanded, and a role of the template's own (PushRole) read as SAM's are
    def actions(function_id: str) -> set[tuple[str, str]]:
        return {
            (str(action), str(resource))
            for policy in roles[function_id].policies
            for statement in policy["Statement"]
            for action in (
                [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
            )
            for resource in (
                [statement["Resource"]] if isinstance(statement["Resource"], str) else statement["Resource"]
            )
        }

    table = "arn:aws:dynamodb:us-east-1:123456789012:table/roomcast-local-Table"
    assert ("dynamodb:PutItem", table) in actions("ManagementFunction")
    assert ("dynamodb:Query", f"{table}/index/*") in actions("ManagementFunction")
    assert (
        "secretsmanager:GetSecretValue",
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:roomcast-local-ReceiptSigningKey",
    ) in actions("ManagementFunction")
    push_queue = "arn:aws:sqs:us-east-1:123456789012:roomcast-local-PushQueue"
    assert ("sqs:ReceiveMessage", push_queue) in actions("PushFunction")
    assert ("logs:PutLogEvents", "*") in actions("PushFunction")  # AWSLambdaBasicExecutionRole
    assert actions("PushFunction") == actions("SlowPushFunction")
    assert {role.access_key_id[:4] for role in roles.values()} == {"ASIA"}
    assert len({role.access_key_id for role in roles.values()}) == len(roles)
