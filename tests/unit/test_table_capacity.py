"""The table's capacity mode (template.yaml ``TableCapacityMode``): on-demand by default, provisioned
with auto scaling of every capacity when asked; and the local resolver's Fn::If that reads it."""

from __future__ import annotations

from typing import Any

import pytest

from roomcast_dev.template import load_template, read_stack
from roomcast_dev.template_intrinsics import Resolver

INDEXES = ("ByRoom", "Scheduled")


def queue_url(name: str) -> str:
    return f"http://q/{name}"


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def _table(parameters: dict[str, str]) -> dict[str, Any]:
    stack = read_stack("roomcast-test", "us-east-1", parameters, queue_url=queue_url)
    return stack.tables["Table"]


def test_the_table_is_on_demand_by_default() -> None:
    # When
    table = _table({})

    # Then
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert "ProvisionedThroughput" not in table
    assert all("ProvisionedThroughput" not in index for index in table["GlobalSecondaryIndexes"])


def test_provisioned_mode_starts_the_table_and_its_indexes_at_their_minimum_capacity() -> None:
    # When
    table = _table(
        {"TableCapacityMode": "provisioned", "TableMinWriteCapacity": "7", "TableMinReadCapacity": "3"}
    )

    # Then
    assert table["BillingMode"] == "PROVISIONED"
    assert table["ProvisionedThroughput"] == {"ReadCapacityUnits": "3", "WriteCapacityUnits": "7"}
    indexes = table["GlobalSecondaryIndexes"]
    by_index = {index["IndexName"]: index["ProvisionedThroughput"] for index in indexes}
    assert by_index["ByRoom"] == {"ReadCapacityUnits": "3", "WriteCapacityUnits": "7"}
    assert by_index["Scheduled"] == {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}


def test_every_capacity_has_target_tracking_auto_scaling_only_when_provisioned(
    template: dict[str, Any],
) -> None:
    # When
    resources = template["Resources"]
    targets = {
        (resource["Properties"]["ResourceId"]["Fn::Sub"], resource["Properties"]["ScalableDimension"]): name
        for name, resource in resources.items()
        if resource["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget"
    }
    policies = [r for r in resources.values() if r["Type"] == "AWS::ApplicationAutoScaling::ScalingPolicy"]

    # Then: reads and writes of the table and of each index, each tracked by one policy
    wanted = {("table/${Table}", f"dynamodb:table:{unit}CapacityUnits") for unit in ("Read", "Write")} | {
        (f"table/${{Table}}/index/{index}", f"dynamodb:index:{unit}CapacityUnits")
        for index in INDEXES
        for unit in ("Read", "Write")
    }
    assert set(targets) == wanted
    assert sorted(p["Properties"]["ScalingTargetId"]["Ref"] for p in policies) == sorted(targets.values())
    for policy in policies:
        configuration = policy["Properties"]["TargetTrackingScalingPolicyConfiguration"]
        assert policy["Properties"]["PolicyType"] == "TargetTrackingScaling"
        assert configuration["TargetValue"] == {"Ref": "TableTargetUtilization"}
    scaling = [name for name, r in resources.items() if r["Type"].startswith("AWS::ApplicationAutoScaling::")]
    assert all(resources[name].get("Condition") == "ProvisionedCapacity" for name in scaling)
    assert template["Parameters"]["TableCapacityMode"]["Default"] == "on-demand"


def test_fn_if_takes_the_branch_its_condition_picks_and_no_value_leaves_the_entry_out() -> None:
    # Given
    template = {
        "Parameters": {"Mode": {"Type": "String", "Default": "a"}},
        "Conditions": {
            "IsB": {"Fn::Equals": [{"Ref": "Mode"}, "b"]},
            "NotB": {"Fn::Not": [{"Condition": "IsB"}]},
            "Both": {
                "Fn::And": [{"Condition": "IsB"}, {"Fn::Or": [{"Condition": "NotB"}, {"Condition": "IsB"}]}]
            },
        },
        "Resources": {},
    }
    value = {
        "Picked": {"Fn::If": ["IsB", "b-value", "other"]},
        "Dropped": {"Fn::If": ["NotB", {"Ref": "AWS::NoValue"}, "kept"]},
        "Listed": ["x", {"Fn::If": ["Both", "y", {"Ref": "AWS::NoValue"}]}],
    }

    # When
    as_default = Resolver(template, "s", "us-east-1", {}, queue_url).resolve(value)
    as_b = Resolver(template, "s", "us-east-1", {"Mode": "b"}, queue_url).resolve(value)

    # Then
    assert as_default == {"Picked": "other", "Listed": ["x"]}
    assert as_b == {"Picked": "b-value", "Dropped": "kept", "Listed": ["x", "y"]}
