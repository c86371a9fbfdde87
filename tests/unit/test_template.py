"""Reading template.yaml: resources, functions, routes and intrinsics, resolved locally."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, cast

import pytest

from roomcast_dev.gateway_routes import RouteTable
from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID
from roomcast_dev.template import PROJECT_ROOT, StackModel, load_template, read_stack
from roomcast_dev.template_intrinsics import Resolver, local_stack_id

STACK = "roomcast-test"
REGION = "us-east-1"


def queue_url(name: str) -> str:
    return f"http://q/{name}"


@pytest.fixture(scope="module")
def stack() -> StackModel:
    return read_stack(STACK, REGION, {"AllowLoopbackPushUrls": "true"}, queue_url=queue_url)


# -- the real template ----------------------------------------------------------------------------


def test_management_function_runs_the_management_handler(stack: StackModel) -> None:
    # When
    function = stack.functions["ManagementFunction"]

    # Then
    assert function.handler == "management_api.handler.lambda_handler"
    assert function.name == "roomcast-test-ManagementFunction"
    assert function.code_path == PROJECT_ROOT / "functions" / "management"
    assert PROJECT_ROOT / "layers" / "shared" in function.layer_paths


def pull_queue_prefix() -> str:
    """roomcast- and the first 8 hex digits of the stack id's UUID, as the template derives it."""
    stack_uuid = local_stack_id(STACK, REGION).rsplit("/", 1)[1]
    return f"roomcast-{stack_uuid.split('-')[0]}-pull-"


def test_pull_queue_names_fit_sqs_whatever_the_stack_name() -> None:
    # Given: the longest stack name CloudFormation takes
    stack = read_stack("s" * 128, REGION, {}, queue_url=queue_url)

    # When: every function's prefix, with the longest queue name made from it
    prefixes = {
        spec.environment["PULL_QUEUE_PREFIX"]
        for spec in stack.functions.values()
        if "PULL_QUEUE_PREFIX" in spec.environment
    }
    [prefix] = prefixes

    # Then: one prefix, within the 40 characters the functions accept, and names within SQS's 80
    assert len(prefix) <= 40
    assert len(f"{prefix}sub_{'0' * 32}-dlq") <= 80


def test_every_pull_queue_grant_names_the_same_prefix(template: dict[str, Any]) -> None:
    # When: the queue ARNs the functions' grants name, and the prefix their environment gets
    text = json.dumps(template)
    grants = re.findall(r'"arn:\$\{AWS::Partition\}:sqs:[^"]*-pull-\*"', text)
    prefixes = re.findall(r'"(roomcast-\$\{StackHash\}-pull-)"', text)

    # Then: every grant is on this stack's pull queues, never on every stack's
    assert grants
    assert all("roomcast-${StackHash}-pull-*" in grant for grant in grants)
    assert prefixes


def test_management_function_environment_is_resolved(stack: StackModel) -> None:
    # When
    environment = stack.functions["ManagementFunction"].environment

    # Then
    assert environment["TABLE_NAME"] == "roomcast-test-Table"
    assert environment["PULL_QUEUE_PREFIX"] == pull_queue_prefix()
    assert environment["ALLOW_LOOPBACK_PUSH_URLS"] == "true"


def test_parameter_default_applies_when_not_given() -> None:
    # When
    stack = read_stack(STACK, REGION, {}, queue_url=queue_url)

    # Then
    assert stack.functions["ManagementFunction"].environment["ALLOW_LOOPBACK_PUSH_URLS"] == "false"


def test_management_is_the_authorized_proxy_and_the_docs_function_the_public_documents(
    stack: StackModel,
) -> None:
    # When
    routes = {(r.method, r.path): r for r in stack.routes}

    # Then
    assert routes[("ANY", "/{proxy+}")].function_id == "ManagementFunction"
    assert routes[("ANY", "/{proxy+}")].authorized is True
    assert routes[("GET", "/openapi.json")].function_id == "DocsFunction"
    assert routes[("GET", "/openapi.json")].authorized is False
    assert routes[("GET", "/docs")].function_id == "DocsFunction"
    assert routes[("GET", "/docs")].authorized is False


def test_the_docs_functions_public_routes_are_exactly_these(stack: StackModel) -> None:
    # When
    public = {(r.method, r.path) for r in stack.routes if not r.authorized}
    docs = {(r.method, r.path) for r in stack.routes if r.function_id == "DocsFunction"}

    # Then: the documents, the console, the origin's root and its icon; nothing else needs no key
    assert public == docs
    assert docs == {
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
        ("GET", "/console"),
        ("GET", "/console/{asset}"),
        ("GET", "/"),
        ("GET", "/favicon.ico"),
        ("GET", "/portal/{sessionId}"),
    }


def test_the_gateway_sends_the_root_and_the_icon_to_the_docs_function(stack: StackModel) -> None:
    # Given: the routes as the local gateway matches them (API Gateway's choice)
    table = RouteTable(stack.routes)

    # When
    root, favicon = table.match("GET", "/"), table.match("GET", "/favicon.ico")
    other_icon = table.match("GET", "/favicon.png")

    # Then: not the gateway's 404 and 401 any more; any other path still needs a key
    for matched in (root, favicon):
        assert matched is not None
        assert (matched[0].route.function_id, matched[0].route.authorized) == ("DocsFunction", False)
    assert other_icon is not None
    assert (other_icon[0].route.function_id, other_icon[0].route.authorized) == ("ManagementFunction", True)
    assert table.match("POST", "/") is None  # the gateway's own 404


def test_authorizer_is_the_authorizer_function_on_the_authorization_header(stack: StackModel) -> None:
    # When
    authorizer = stack.authorizer

    # Then
    assert authorizer is not None
    assert authorizer.function_id == "AuthorizerFunction"
    assert authorizer.identity_headers == ("authorization",)
    assert authorizer.cache_ttl_seconds == 300


def test_authorizer_cache_ttl_follows_its_parameter() -> None:
    # When
    stack = read_stack(STACK, REGION, {"AuthorizerCacheTtlSeconds": "0"}, queue_url=queue_url)

    # Then
    assert stack.authorizer is not None
    assert stack.authorizer.cache_ttl_seconds == 0


def test_table_is_named_after_the_stack(stack: StackModel) -> None:
    # When
    table = stack.tables["Table"]

    # Then
    assert table["TableName"] == "roomcast-test-Table"


def test_outputs_are_resolved(stack: StackModel) -> None:
    # When
    outputs = stack.outputs

    # Then
    assert outputs["TableName"] == "roomcast-test-Table"
    assert outputs["PullQueuePrefix"] == pull_queue_prefix()
    assert outputs["ManagementFunctionName"] == "roomcast-test-ManagementFunction"


# -- the resolver, on a small template ------------------------------------------------------------

SMALL_TEMPLATE = """\
Parameters:
  Stage:
    Type: String
    Default: dev
  Retention:
    Type: Number
    Default: 7
Resources:
  Queue:
    Type: AWS::SQS::Queue
  FifoQueue:
    Type: AWS::SQS::Queue
    Properties:
      FifoQueue: true
  NamedQueue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub "${AWS::StackName}-named-${Stage}"
  Table:
    Type: AWS::DynamoDB::Table
  Bucket:
    Type: AWS::S3::Bucket
  Values:
    Type: Custom::Values
    Properties:
      StageRef: !Ref Stage
      RetentionRef: !Ref Retention
      QueueRef: !Ref Queue
      TableRef: !Ref Table
      QueueArn: !GetAtt Queue.Arn
      QueueUrl: !GetAtt Queue.QueueUrl
      QueueName: !GetAtt Queue.QueueName
      TableArn: !GetAtt Table.Arn
      BucketArn: !GetAtt Bucket.Arn
      Sub: !Sub "${AWS::StackName}:${Queue.Arn}:${AWS::Region}:${AWS::AccountId}"
      SubWithVariables: !Sub
        - "${Prefix}/${Stage}"
        - Prefix: !Ref Table
      Join: !Join ["-", [!Ref Stage, "x", !GetAtt Queue.QueueName]]
      Select: !Select [1, ["a", "b", "c"]]
      LongForm:
        Fn::GetAtt: [Table, Arn]
      Nested:
        - Inner: !Ref Stage
"""


@pytest.fixture
def small_template(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "template.yaml"
    path.write_text(SMALL_TEMPLATE, encoding="utf-8")
    return load_template(path)


@pytest.fixture
def resolver(small_template: dict[str, Any]) -> Resolver:
    return Resolver(small_template, "demo", "eu-west-1", {"Stage": "prod"}, queue_url)


def _resolved(resolver: Resolver, small_template: dict[str, Any], name: str) -> Any:
    return resolver.resolve(small_template["Resources"]["Values"]["Properties"][name])


def test_short_tags_load_as_their_long_form(small_template: dict[str, Any]) -> None:
    # When
    values = small_template["Resources"]["Values"]["Properties"]

    # Then
    assert values["StageRef"] == {"Ref": "Stage"}
    assert values["QueueArn"] == {"Fn::GetAtt": ["Queue", "Arn"]}
    assert values["Sub"] == {"Fn::Sub": "${AWS::StackName}:${Queue.Arn}:${AWS::Region}:${AWS::AccountId}"}
    assert values["Join"] == {
        "Fn::Join": ["-", [{"Ref": "Stage"}, "x", {"Fn::GetAtt": ["Queue", "QueueName"]}]]
    }
    assert values["SubWithVariables"] == {"Fn::Sub": ["${Prefix}/${Stage}", {"Prefix": {"Ref": "Table"}}]}


def test_file_that_is_not_a_mapping_is_not_a_template(tmp_path: Path) -> None:
    # Given
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n", encoding="utf-8")

    # When / Then
    with pytest.raises(ValueError, match="not a template"):
        load_template(path)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("StageRef", "prod"),
        ("RetentionRef", "7"),
        ("QueueRef", "http://q/demo-Queue"),
        ("TableRef", "demo-Table"),
        ("QueueArn", f"arn:aws:sqs:eu-west-1:{LOCAL_ACCOUNT_ID}:demo-Queue"),
        ("QueueUrl", "http://q/demo-Queue"),
        ("QueueName", "demo-Queue"),
        ("TableArn", f"arn:aws:dynamodb:eu-west-1:{LOCAL_ACCOUNT_ID}:table/demo-Table"),
        ("BucketArn", "arn:aws:s3:::demo-bucket"),
        ("Sub", f"demo:arn:aws:sqs:eu-west-1:{LOCAL_ACCOUNT_ID}:demo-Queue:eu-west-1:{LOCAL_ACCOUNT_ID}"),
        ("SubWithVariables", "demo-Table/prod"),
        ("Join", "prod-x-demo-Queue"),
        ("Select", "b"),
        ("LongForm", f"arn:aws:dynamodb:eu-west-1:{LOCAL_ACCOUNT_ID}:table/demo-Table"),
        ("Nested", [{"Inner": "prod"}]),
    ],
)
def test_intrinsic_resolves_to_the_local_value(
    resolver: Resolver, small_template: dict[str, Any], name: str, expected: Any
) -> None:
    # When
    value = _resolved(resolver, small_template, name)

    # Then
    assert value == expected


@pytest.mark.parametrize(
    ("logical_id", "expected"),
    [
        ("Queue", "demo-Queue"),
        ("FifoQueue", "demo-FifoQueue.fifo"),
        ("NamedQueue", "demo-named-prod"),
        ("Bucket", "demo-bucket"),
    ],
)
def test_physical_name_follows_cloudformation_naming(
    resolver: Resolver, logical_id: str, expected: str
) -> None:
    # When / Then
    assert resolver.physical_name(logical_id) == expected


def test_ref_to_an_unknown_name_is_an_error(resolver: Resolver) -> None:
    # When / Then
    with pytest.raises(KeyError, match="Missing"):
        resolver.resolve({"Ref": "Missing"})


def test_unsupported_attribute_is_an_error(resolver: Resolver) -> None:
    # When / Then
    with pytest.raises(KeyError, match="not supported"):
        resolver.resolve({"Fn::GetAtt": ["Table", "StreamArn"]})


def test_mapping_with_several_keys_is_resolved_key_by_key(resolver: Resolver) -> None:
    # When
    value = resolver.resolve({"Ref": "Stage", "Other": {"Ref": "Stage"}})

    # Then
    assert value == {"Ref": "Stage", "Other": "prod"}


def test_sub_renders_an_escaped_placeholder_literally(resolver: Resolver) -> None:
    # When
    value = resolver.resolve({"Fn::Sub": "${!Literal}-${Stage}"})

    # Then
    assert value == "${Literal}-prod"


# -- read_stack, on a small SAM template ----------------------------------------------------------

SMALL_SAM_TEMPLATE = """\
Globals:
  Function:
    Timeout: 29
    MemorySize: 512
    Layers:
      - !Ref Shared
    Environment:
      Variables:
        TABLE_NAME: !Ref Table
        LEVEL: INFO
Resources:
  Shared:
    Type: AWS::Serverless::LayerVersion
    Properties:
      ContentUri: layers/shared/
  Table:
    Type: AWS::DynamoDB::Table
  Work:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt Dead.Arn
        maxReceiveCount: 3
  Dead:
    Type: AWS::SQS::Queue
  Plain:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/plain/
      Handler: plain.handler
  Worker:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/worker/
      Handler: worker.handler
      Timeout: 60
      MemorySize: 256
      Environment:
        Variables:
          LEVEL: DEBUG
          QUEUE_URL: !Ref Work
      Events:
        Jobs:
          Type: SQS
          Properties:
            Queue: !GetAtt Work.Arn
            BatchSize: 5
            MaximumBatchingWindowInSeconds: 2
            FunctionResponseTypes: [ReportBatchItemFailures]
            ScalingConfig:
              MaximumConcurrency: 4
        Simple:
          Type: SQS
          Properties:
            Queue: !GetAtt Dead.Arn
"""


@pytest.fixture
def small_stack(tmp_path: Path) -> StackModel:
    path = tmp_path / "template.yaml"
    path.write_text(SMALL_SAM_TEMPLATE, encoding="utf-8")
    return read_stack("demo", "eu-west-1", {}, queue_url=queue_url, path=path)


def test_function_without_its_own_settings_takes_the_globals(small_stack: StackModel) -> None:
    # When
    function = small_stack.functions["Plain"]

    # Then
    assert (function.timeout_seconds, function.memory_mb) == (29, 512)
    assert function.environment == {"TABLE_NAME": "demo-Table", "LEVEL": "INFO"}


def test_function_settings_override_the_globals(small_stack: StackModel) -> None:
    # When
    function = small_stack.functions["Worker"]

    # Then
    assert (function.timeout_seconds, function.memory_mb) == (60, 256)
    assert function.environment == {
        "TABLE_NAME": "demo-Table",
        "LEVEL": "DEBUG",
        "QUEUE_URL": "http://q/demo-Work",
    }


def test_code_and_layer_paths_are_relative_to_the_template(tmp_path: Path, small_stack: StackModel) -> None:
    # When
    function = small_stack.functions["Worker"]

    # Then
    assert function.code_path == tmp_path / "functions" / "worker"
    assert function.layer_paths == (tmp_path / "layers" / "shared",)


def test_queue_properties_may_refer_to_other_queues(small_stack: StackModel) -> None:
    # When
    work = small_stack.queues["Work"]

    # Then
    assert work["QueueName"] == "demo-Work"
    assert work["RedrivePolicy"] == {
        "deadLetterTargetArn": f"arn:aws:sqs:eu-west-1:{LOCAL_ACCOUNT_ID}:demo-Dead",
        "maxReceiveCount": 3,
    }


def test_sqs_events_become_triggers_with_their_batching_settings(small_stack: StackModel) -> None:
    # When
    triggers = {trigger.queue_id: trigger for trigger in small_stack.sqs_triggers}

    # Then
    jobs = triggers["Work"]
    assert (jobs.function_id, jobs.batch_size, jobs.batching_window_seconds) == ("Worker", 5, 2.0)
    assert jobs.report_batch_item_failures is True
    assert jobs.maximum_concurrency == 4


def test_sqs_event_without_settings_takes_lambda_defaults(small_stack: StackModel) -> None:
    # When
    simple = next(t for t in small_stack.sqs_triggers if t.queue_id == "Dead")

    # Then
    assert (simple.batch_size, simple.batching_window_seconds) == (10, 0.0)
    assert simple.report_batch_item_failures is False


def test_template_without_an_http_api_has_no_authorizer_or_routes(small_stack: StackModel) -> None:
    # When / Then
    assert small_stack.authorizer is None
    assert small_stack.routes == []


# -- alarms, the alarm topic and the dashboard (the real template) -------------------------------

TOPIC = {"Ref": "AlarmTopic"}
PSEUDO_PARAMETERS = {
    "AWS::Region": "eu-west-1",
    "AWS::StackName": "roomcast",
    "AWS::AccountId": "123456789012",
    "AWS::Partition": "aws",
    "AWS::URLSuffix": "amazonaws.com",
}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def _of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def _alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in _of_type(template, "AWS::CloudWatch::Alarm").items()}


def _watches(alarm: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]]:
    return alarm["Namespace"], alarm["MetricName"], alarm["Dimensions"]


def test_every_alarm_notifies_the_alarm_topic_on_alarm_and_on_ok(template: dict[str, Any]) -> None:
    # When
    alarms = _alarms(template)

    # Then
    assert alarms
    for name, alarm in alarms.items():
        assert alarm["AlarmActions"] == [TOPIC], name
        assert alarm["OKActions"] == [TOPIC], name
        assert alarm["TreatMissingData"] == "notBreaching", name


@pytest.mark.parametrize(
    ("alarm_id", "namespace", "metric", "dimensions", "statistic", "threshold"),
    [
        (
            "PushPoisonQueueAlarm",
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["PushPoisonQueue", "QueueName"]}}],
            "Maximum",
            0,
        ),
        (
            "PushQueueAgeAlarm",
            "AWS/SQS",
            "ApproximateAgeOfOldestMessage",
            [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["PushQueue", "QueueName"]}}],
            "Maximum",
            {"Ref": "PushQueueAgeAlarmSeconds"},
        ),
        (
            "HttpApi5xxAlarm",
            "AWS/ApiGateway",
            "5xx",
            [{"Name": "ApiId", "Value": {"Ref": "HttpApi"}}],
            "Sum",
            0,
        ),
    ],
)
def test_alarm_watches_its_metric_above_its_threshold(
    template: dict[str, Any],
    alarm_id: str,
    namespace: str,
    metric: str,
    dimensions: list[dict[str, Any]],
    statistic: str,
    threshold: Any,
) -> None:
    # When
    alarm = _alarms(template)[alarm_id]

    # Then
    assert _watches(alarm) == (namespace, metric, dimensions)
    assert alarm["Statistic"] == statistic
    assert alarm["Threshold"] == threshold
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold"


def test_push_queue_age_threshold_defaults_above_the_longest_sqs_delay(template: dict[str, Any]) -> None:
    # When
    parameter = template["Parameters"]["PushQueueAgeAlarmSeconds"]

    # Then: a waiting envelope is re-sent at least every 900 s, so only a backlog gets older
    assert parameter["Default"] > 900


def test_delivery_log_alarm_watches_the_metric_the_log_writer_emits(template: dict[str, Any]) -> None:
    # Given
    from roomcast.log import delivery_log as log
    from roomcast.platform.observability import SERVICE_NAME, metrics

    # When
    alarm = _alarms(template)["DeliveryLogWriteFailedAlarm"]

    # Then
    assert 'name="DeliveryLogWriteFailed"' in Path(log.__file__).read_text(encoding="utf-8")
    assert _watches(alarm) == (
        metrics.namespace,
        "DeliveryLogWriteFailed",
        [{"Name": "service", "Value": SERVICE_NAME}],
    )
    assert (alarm["Statistic"], alarm["Threshold"]) == ("Sum", 0)


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_every_function_has_an_alarm_on_its_errors_and_throttles(
    template: dict[str, Any], metric: str
) -> None:
    # Given
    functions = _of_type(template, "AWS::Serverless::Function")

    # When
    watched = {
        alarm["Dimensions"][0]["Value"]["Ref"]
        for alarm in _alarms(template).values()
        if (alarm["Namespace"], alarm["MetricName"]) == ("AWS/Lambda", metric)
        and [d["Name"] for d in alarm["Dimensions"]] == ["FunctionName"]
    }

    # Then
    assert functions
    assert watched == set(functions)


def test_alarm_topic_is_encrypted_with_a_key_alarms_and_events_may_use(template: dict[str, Any]) -> None:
    # Given
    key_policy = template["Resources"]["EncryptionKey"]["Properties"]["KeyPolicy"]

    # When
    topic = template["Resources"]["AlarmTopic"]["Properties"]
    service_principals = {
        service
        for statement in key_policy["Statement"]
        if {"kms:Decrypt", "kms:GenerateDataKey*"} <= set(statement["Action"])
        for service in statement["Principal"].get("Service", [])
    }

    # Then
    assert topic["KmsMasterKeyId"] == {"Fn::GetAtt": ["EncryptionKey", "Arn"]}
    assert {"cloudwatch.amazonaws.com", "events.amazonaws.com"} <= service_principals
    # CloudWatch only for this account's alarms (EventBridge's requests carry no source keys)
    (alarms,) = [
        s for s in key_policy["Statement"] if s["Principal"].get("Service") == ["cloudwatch.amazonaws.com"]
    ]
    assert alarms["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert "alarm:*" in alarms["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Sub"]


def test_alarm_topic_policy_lets_cloudwatch_and_the_glue_rule_publish(template: dict[str, Any]) -> None:
    # When
    policy = template["Resources"]["AlarmTopicPolicy"]["Properties"]
    publishers = {
        statement["Principal"]["Service"]: statement.get("Condition")
        for statement in policy["PolicyDocument"]["Statement"]
        if statement["Effect"] == "Allow" and statement["Action"] == "sns:Publish"
    }

    # Then
    assert policy["Topics"] == [TOPIC]
    assert publishers["events.amazonaws.com"] == {
        "ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": ["GlueJobFailedRule", "Arn"]}}
    }
    assert "cloudwatch.amazonaws.com" in publishers


def test_glue_job_failures_of_both_jobs_go_to_the_alarm_topic(template: dict[str, Any]) -> None:
    # When
    rule = template["Resources"]["GlueJobFailedRule"]["Properties"]
    pattern = rule["EventPattern"]

    # Then
    assert pattern["source"] == ["aws.glue"]
    assert pattern["detail-type"] == ["Glue Job State Change"]
    assert pattern["detail"]["jobName"] == [{"Ref": "CompactionJob"}, {"Ref": "AnalyticsJob"}]
    assert set(pattern["detail"]["state"]) == {"FAILED", "TIMEOUT"}
    assert [target["Arn"] for target in rule["Targets"]] == [TOPIC]


def test_alarm_email_subscription_exists_only_when_an_address_is_given(template: dict[str, Any]) -> None:
    # When
    subscription = template["Resources"]["AlarmEmailSubscription"]

    # Then
    assert template["Parameters"]["AlarmEmail"]["Default"] == ""
    assert subscription["Condition"] == "HasAlarmEmail"
    assert template["Conditions"]["HasAlarmEmail"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmEmail"}, ""]}]
    }
    assert subscription["Properties"] == {
        "TopicArn": TOPIC,
        "Protocol": "email",
        "Endpoint": {"Ref": "AlarmEmail"},
    }


def test_alarm_topic_arn_is_an_output(template: dict[str, Any]) -> None:
    # When / Then
    assert template["Outputs"]["AlarmTopicArn"]["Value"] == {"Fn::GetAtt": ["AlarmTopic", "TopicArn"]}


def _rendered_dashboard(template: dict[str, Any]) -> dict[str, Any]:
    """The dashboard body with every ${...} replaced as CloudFormation would, after checking it exists."""
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    assert isinstance(body, str)
    parameters = template["Parameters"]
    resources = template["Resources"]

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in PSEUDO_PARAMETERS:
            return PSEUDO_PARAMETERS[name]
        if name in parameters:
            return str(parameters[name]["Default"])
        logical_id = name.split(".", 1)[0]
        assert logical_id in resources, f"${{{name}}} names no parameter or resource"
        return f"{name}-value"

    return cast(dict[str, Any], json.loads(re.sub(r"\$\{([^}!]+)\}", value, body)))


def _dashboard_metrics(template: dict[str, Any]) -> list[list[Any]]:
    """The dashboard's metrics, each named by namespace, name and dimensions (a math or search
    expression, a list holding one object, names none and is left out)."""
    widgets = _rendered_dashboard(template)["widgets"]
    return [
        metric
        for w in widgets
        if w["type"] == "metric"
        for metric in w["properties"]["metrics"]
        if not isinstance(metric[0], dict)
    ]


def test_the_dashboard_ranks_tenants_by_failed_attempts(template: dict[str, Any]) -> None:
    # When
    widgets = _rendered_dashboard(template)["widgets"]
    expressions = [
        m[0]["expression"]
        for w in widgets
        for m in w["properties"].get("metrics", [])
        if isinstance(m[0], dict)
    ]

    # Then: a search over the tenant dimension the metrics function reports (docs/metrics.md)
    assert any("{Roomcast,service,tenant}" in e and "DeliveriesFailedAttempts" in e for e in expressions)


def test_dashboard_body_is_json_once_substituted(template: dict[str, Any]) -> None:
    # When
    dashboard = _rendered_dashboard(template)

    # Then
    assert dashboard["widgets"]
    for widget in dashboard["widgets"]:
        assert {"type", "x", "y", "width", "height", "properties"} <= set(widget)


@pytest.mark.parametrize(
    ("namespace", "metric", "dimension_value"),
    [
        ("AWS/Lambda", "Invocations", "PublishFunction-value"),
        ("AWS/Lambda", "Invocations", "PullFunction-value"),
        ("AWS/Lambda", "Invocations", "PushFunction-value"),
        ("AWS/Lambda", "Duration", "PublishFunction-value"),
        ("AWS/Lambda", "Duration", "PullFunction-value"),
        ("AWS/Lambda", "Duration", "PushFunction-value"),
        ("AWS/SQS", "ApproximateNumberOfMessagesVisible", "PushQueue.QueueName-value"),
        ("AWS/SQS", "ApproximateAgeOfOldestMessage", "PushQueue.QueueName-value"),
        ("AWS/SQS", "ApproximateNumberOfMessagesVisible", "PushPoisonQueue.QueueName-value"),
        ("AWS/DynamoDB", "ReadThrottleEvents", "Table-value"),
        ("AWS/DynamoDB", "WriteThrottleEvents", "Table-value"),
        ("Roomcast", "DeliveryLogWriteFailed", "roomcast"),
    ],
)
def test_dashboard_shows_the_main_figures(
    template: dict[str, Any], namespace: str, metric: str, dimension_value: str
) -> None:
    # When
    shown = {(m[0], m[1], m[3]) for m in _dashboard_metrics(template)}

    # Then
    assert (namespace, metric, dimension_value) in shown


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_dashboard_shows_every_functions_errors_and_throttles(template: dict[str, Any], metric: str) -> None:
    # Given
    functions = _of_type(template, "AWS::Serverless::Function")

    # When
    shown = {m[3] for m in _dashboard_metrics(template) if m[:2] == ["AWS/Lambda", metric]}

    # Then
    assert shown == {f"{function_id}-value" for function_id in functions}


# -- hardening (the real template) ----------------------------------------------------------------


def test_every_log_group_has_a_retention_and_the_glue_jobs_write_to_the_stacks_own(
    template: dict[str, Any],
) -> None:
    # When
    resources = template["Resources"]
    log_groups = {n: r["Properties"] for n, r in resources.items() if r["Type"] == "AWS::Logs::LogGroup"}
    jobs = {n: r["Properties"] for n, r in resources.items() if r["Type"] == "AWS::Glue::Job"}

    # Then: nothing kept for ever, Glue's logs included (Glue would create its own groups otherwise)
    assert all(group.get("RetentionInDays") == {"Ref": "LogRetentionInDays"} for group in log_groups.values())
    prefix = {"Fn::Sub": "/aws-glue/${AWS::StackName}"}
    assert jobs
    assert all(job["DefaultArguments"]["--custom-logGroup-prefix"] == prefix for job in jobs.values())
    names = {group["LogGroupName"]["Fn::Sub"] for group in log_groups.values() if "LogGroupName" in group}
    assert {"/aws-glue/${AWS::StackName}/error", "/aws-glue/${AWS::StackName}/output"} <= names


def test_every_log_group_is_encrypted_with_the_stack_key(template: dict[str, Any]) -> None:
    # When
    log_groups = _of_type(template, "AWS::Logs::LogGroup")

    # Then
    assert log_groups
    for name, log_group in log_groups.items():
        assert log_group["Properties"]["KmsKeyId"] == {"Fn::GetAtt": ["EncryptionKey", "Arn"]}, name


def test_push_function_reserves_what_its_queue_trigger_may_use(template: dict[str, Any]) -> None:
    # When
    push = template["Resources"]["PushFunction"]["Properties"]
    trigger = push["Events"]["PushQueue"]["Properties"]

    # Then: a lower reservation would throttle the poller, a higher one hold idle concurrency; and
    # none unless asked for (a new account's quota allows none)
    assert push["ReservedConcurrentExecutions"] == {
        "Fn::If": [
            "ReservesConcurrency",
            trigger["ScalingConfig"]["MaximumConcurrency"],
            {"Ref": "AWS::NoValue"},
        ]
    }


def test_no_function_reserves_concurrency_by_default(template: dict[str, Any]) -> None:
    # When
    reserving = {
        name: resource["Properties"]["ReservedConcurrentExecutions"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
        and "ReservedConcurrentExecutions" in resource["Properties"]
    }

    # Then: each reservation is conditional on ReserveConcurrency, which is off by default
    assert template["Parameters"]["ReserveConcurrency"]["Default"] == "false"
    assert reserving
    assert {value["Fn::If"][0] for value in reserving.values()} == {"ReservesConcurrency"}
    assert all(value["Fn::If"][2] == {"Ref": "AWS::NoValue"} for value in reserving.values())


def test_every_checkov_skip_says_why(template: dict[str, Any]) -> None:
    # When
    skips = [
        (name, skip)
        for name, resource in template["Resources"].items()
        for skip in resource.get("Metadata", {}).get("checkov", {}).get("skip", [])
    ]

    # Then
    assert skips
    for name, skip in skips:
        assert re.fullmatch(r"CKV2?_AWS_\d+", skip["id"]), name
        assert len(skip.get("comment", "")) > 40, (name, skip["id"])


# -- the delivery log's Firehose stream (the real template) ---------------------------------------


def _statements(function: dict[str, Any]) -> list[dict[str, Any]]:
    """The statements the template writes for a function: in its SAM ``Policies``, or in the
    ``AWS::IAM::Role`` its ``Role`` names (SAM's own policy templates and managed policies aside)."""
    role = function["Properties"].get("Role")
    if role is not None:
        role_properties = load_template()["Resources"][role["Fn::GetAtt"][0]]["Properties"]
        return [s for p in role_properties.get("Policies", []) for s in p["PolicyDocument"]["Statement"]]
    return [
        statement
        for policy in function["Properties"].get("Policies", [])
        if isinstance(policy, dict)
        for statement in policy.get("Statement", [])
    ]


def _actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return [action] if isinstance(action, str) else list(action)


def test_functions_that_write_the_log_may_only_put_batches_to_its_stream(template: dict[str, Any]) -> None:
    # Given
    functions = _of_type(template, "AWS::Serverless::Function")
    stream = {"Fn::GetAtt": ["DeliveryLogStream", "Arn"]}

    # When
    writers = {
        name
        for name, function in functions.items()
        if "DELIVERY_STREAM" in function["Properties"].get("Environment", {}).get("Variables", {})
    }

    # Then: each writer has the stream's name and PutRecordBatch on it, and no function writes S3
    assert {"PublishFunction", "PushFunction", "PullFunction"} <= writers
    for name in writers:
        variables = functions[name]["Properties"]["Environment"]["Variables"]
        assert variables["DELIVERY_STREAM"] == {"Ref": "DeliveryLogStream"}, name
        assert {"Effect": "Allow", "Action": "firehose:PutRecordBatch", "Resource": stream} in _statements(
            functions[name]
        ), name
    for name, function in functions.items():
        actions = [str(statement["Action"]) for statement in _statements(function)]
        assert not any("s3:" in action for action in actions), name
        assert "LOG_BUCKET" not in function["Properties"].get("Environment", {}).get("Variables", {}), name


def test_the_stream_writes_gzip_ndjson_under_raw_by_hour_with_the_stack_key(template: dict[str, Any]) -> None:
    # When
    stream = template["Resources"]["DeliveryLogStream"]["Properties"]
    destination = stream["ExtendedS3DestinationConfiguration"]

    # Then: the layout the Glue jobs read (raw/dt=…/hour=…/*.gz)
    assert stream["DeliveryStreamType"] == "DirectPut"
    assert destination["BucketARN"] == {"Fn::GetAtt": ["LogBucket", "Arn"]}
    assert destination["Prefix"] == "raw/dt=!{timestamp:yyyy-MM-dd}/hour=!{timestamp:HH}/"
    assert "!{firehose:error-output-type}" in destination["ErrorOutputPrefix"]
    assert not destination["ErrorOutputPrefix"].startswith("raw/")
    # the functions send each record as a gzip member (docs/decisions/0014-delivery-log-files.md)
    assert destination["CompressionFormat"] == "UNCOMPRESSED"
    assert destination["FileExtension"].endswith(".gz")
    assert stream["DeliveryStreamEncryptionConfigurationInput"] == {
        "KeyType": "CUSTOMER_MANAGED_CMK",
        "KeyARN": {"Fn::GetAtt": ["EncryptionKey", "Arn"]},
    }
    # a file's records arrived within 15 minutes: the midnight rule of the compaction job holds
    assert destination["BufferingHints"]["IntervalInSeconds"] <= 900


def test_the_streams_role_writes_only_the_raw_prefixes_of_the_log_bucket(template: dict[str, Any]) -> None:
    # When
    role = template["Resources"]["DeliveryLogStreamRole"]["Properties"]
    (policy,) = role["Policies"]
    writes = [
        statement
        for statement in policy["PolicyDocument"]["Statement"]
        if "s3:PutObject" in statement["Action"]
    ]

    # Then
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "firehose.amazonaws.com"
    }
    assert [statement["Resource"] for statement in writes] == [
        [{"Fn::Sub": "${LogBucket.Arn}/raw/*"}, {"Fn::Sub": "${LogBucket.Arn}/raw-errors/*"}]
    ]


def test_functions_that_read_the_signing_key_may_read_and_decrypt_only_that_secret(
    template: dict[str, Any],
) -> None:
    # Given
    functions = _of_type(template, "AWS::Serverless::Function")
    secret = {"Ref": "ReceiptSigningKey"}

    # When
    readers = {
        name
        for name, function in functions.items()
        if "RECEIPT_KEY_SECRET" in function["Properties"].get("Environment", {}).get("Variables", {})
    }

    # Then: pull signs receipts, management seals list cursors (docs/decisions/0027-sealed-list-cursors.md);
    # each gets the secret's name, GetSecretValue on it, and kms:Decrypt only through Secrets Manager
    assert readers == {"PullFunction", "ManagementFunction"}
    for name in readers:
        properties = functions[name]["Properties"]
        assert properties["Environment"]["Variables"]["RECEIPT_KEY_SECRET"] == secret, name
        read = {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": secret}}
        assert read in properties["Policies"], name
        decrypts = [s for s in _statements(functions[name]) if s["Action"] == "kms:Decrypt"]
        assert decrypts == [
            {
                "Effect": "Allow",
                "Action": "kms:Decrypt",
                "Resource": {"Fn::GetAtt": ["EncryptionKey", "Arn"]},
                "Condition": {
                    "StringEquals": {
                        "kms:ViaService": {"Fn::Sub": "secretsmanager.${AWS::Region}.${AWS::URLSuffix}"}
                    }
                },
            }
        ], name


# -- what `sam build && sam deploy` ship (the real template; nothing deployed) ---------------------

# The properties `sam package`/`sam deploy` upload and replace with their s3:// URL when they name a
# local path, for the resource types this template has (aws-sam-cli's RESOURCES_WITH_LOCAL_PATHS,
# samcli/lib/utils/resources.py). Nothing else is uploaded: not a Glue job's --extra-py-files.
PACKAGED_PROPERTIES = {
    "AWS::Serverless::Function": ("CodeUri",),
    "AWS::Serverless::LayerVersion": ("ContentUri",),
    "AWS::Glue::Job": ("Command.ScriptLocation",),
}
# Glue job arguments naming more code for a run to load: each would have to be in S3 already.
GLUE_CODE_ARGUMENTS = {
    "--extra-py-files",
    "--extra-files",
    "--extra-jars",
    "--additional-python-modules",
    "--python-modules-installer-option",
}
DOCUMENT = PROJECT_ROOT / "functions" / "docs" / "api_docs" / "openapi.json"


def _property(properties: dict[str, Any], dotted: str) -> Any:
    value: Any = properties
    for name in dotted.split("."):
        value = value[name]
    return value


def test_every_artifact_sam_deploy_uploads_is_a_file_or_folder_of_the_repository(
    template: dict[str, Any],
) -> None:
    # When: each packaged property of each resource, as the template names it
    named = {
        (resource_id, dotted): _property(resource["Properties"], dotted)
        for kind, properties in PACKAGED_PROPERTIES.items()
        for resource_id, resource in _of_type(template, kind).items()
        for dotted in properties
    }

    # Then: a local path that exists, so `sam deploy` uploads it; never an object put there by hand
    assert {resource_id for resource_id, _ in named} >= {"SharedLayer", "DocsFunction", "CompactionJob"}
    for (resource_id, dotted), path in named.items():
        assert isinstance(path, str), (resource_id, dotted)
        assert not path.startswith("s3://"), (resource_id, dotted)
        assert (PROJECT_ROOT / path).exists(), (resource_id, dotted, path)


def test_glue_jobs_run_their_one_file_scripts_and_load_no_other_code(template: dict[str, Any]) -> None:
    # When
    jobs = {name: job["Properties"] for name, job in _of_type(template, "AWS::Glue::Job").items()}

    # Then: the one script, which carries roomcast_glue and both entrypoints, running each job's
    # own; no argument names code to fetch from S3
    assert {name: job["Command"]["ScriptLocation"] for name, job in jobs.items()} == {
        "CompactionJob": "glue_jobs/bundled/roomcast_jobs.py",
        "AnalyticsJob": "glue_jobs/bundled/roomcast_jobs.py",
    }
    assert {name: job["DefaultArguments"]["--roomcast-job"] for name, job in jobs.items()} == {
        "CompactionJob": "compact_job",
        "AnalyticsJob": "analytics_job",
    }
    for name, job in jobs.items():
        assert not GLUE_CODE_ARGUMENTS & set(job["DefaultArguments"]), name


def test_glue_job_scripts_are_current_with_the_jobs_and_their_package() -> None:
    from roomcast_dev import glue_assets

    # When
    current = glue_assets.is_current()

    # Then: the committed script is what `make glue-scripts` makes from glue_jobs/ now, and alone
    assert current, "stale Glue job script: run make glue-scripts"
    assert list(glue_assets.BUNDLE.parent.iterdir()) == [glue_assets.BUNDLE]
    bundled = set(glue_assets.sources())
    assert {"roomcast_glue/transforms.py", "roomcast_glue/schema.py", "compact_job.py"} <= bundled


def test_glue_jobs_may_read_their_scripts_where_sam_deploy_uploads_them(template: dict[str, Any]) -> None:
    # Given: samconfig.toml lets `sam deploy` create and use its managed bucket
    samconfig = tomllib.loads((PROJECT_ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    assert samconfig["default"]["deploy"]["parameters"]["resolve_s3"] is True

    # When
    policies = template["Resources"]["GlueJobRole"]["Properties"]["Policies"]
    statements = {policy["PolicyName"]: policy["PolicyDocument"]["Statement"] for policy in policies}

    # Then: the jobs' role reads objects of ArtifactBucket, by default that managed bucket
    assert statements["packaged-scripts"] == [
        {
            "Effect": "Allow",
            "Action": "s3:GetObject",
            "Resource": {"Fn::Sub": "arn:${AWS::Partition}:s3:::${ArtifactBucket}/*"},
        }
    ]
    default = template["Parameters"]["ArtifactBucket"]["Default"]
    assert default == "aws-sam-cli-managed-default-samclisourcebucket-*"
    assert re.fullmatch(template["Parameters"]["ArtifactBucket"]["AllowedPattern"], default)


def test_the_docs_function_ships_a_committed_openapi_json_current_with_the_routes(stack: StackModel) -> None:
    from roomcast_dev import openapi

    # Given: the file is in the docs function's code, and git does not ignore it
    assert DOCUMENT.is_relative_to(stack.functions[openapi.DOCS_FUNCTION].code_path)
    ignored = (PROJECT_ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert not [line for line in ignored if "openapi" in line or "bundled" in line]

    # When
    current = openapi.document_text(stack)

    # Then: it is what `make openapi` writes from the functions' routes now
    assert DOCUMENT.is_file()
    assert DOCUMENT.read_text(encoding="utf-8") == current, "stale openapi.json: run make openapi"


# -- least privilege: what the functions' roles grant (enforced on the local stack, ADR 0036) ------

# Actions no function's code calls (checked against the data access code by the local stack's
# enforcement in every end-to-end test): a grant of one of them is a grant too many.
UNCALLED_ACTIONS = {"dynamodb:Scan", "dynamodb:DescribeTable"}
# SAM policy templates that grant some of them.
BROAD_POLICY_TEMPLATES = {"DynamoDBCrudPolicy", "DynamoDBReadPolicy"}
# What each function's code calls on the table (index Queries aside): recorded over the test
# suites with ROOMCAST_IAM_USAGE_FILE, then checked against the code paths no test takes
# (ADR 0036). Every function that ends a delivery may publish an operational event, which takes
# the publish path: GetItem, Query, BatchWriteItem, BatchGetItem, UpdateItem.
PUBLISH_PATH = {"GetItem", "PutItem", "UpdateItem", "BatchGetItem", "BatchWriteItem", "Query"}
TABLE_ACTIONS = {
    "AuthorizerFunction": {"GetItem"},
    "ManagementFunction": {"GetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchGetItem"}
    | {"ConditionCheckItem", "Query", "BatchWriteItem"},  # a test event takes the publish path
    "DocsFunction": {"GetItem"},  # the portal page's session and its tenant's settings
    "PublishFunction": PUBLISH_PATH,
    "PullFunction": PUBLISH_PATH | {"PartiQLInsert"},  # an ack's new records (ADR 0026, amendment 5)
    "PushFunction": PUBLISH_PATH,
    "SlowPushFunction": PUBLISH_PATH,
    "OutboxFunction": PUBLISH_PATH | {"DeleteItem"},
    "MetricsFunction": {"UpdateItem", "Query"},  # its buckets' guarded ADDs; a scope's backlog
    "AlertsFunction": {"GetItem", "PutItem", "Query"},  # the rules, the metrics, the subscriptions
}
# Only these list a room's messages (GET .../messages, .../deliveries; the jobs' pages).
INDEX_READERS = {"ManagementFunction", "OutboxFunction"}
TABLE = {"Fn::GetAtt": ["Table", "Arn"]}


def test_no_function_is_granted_what_its_code_never_calls(template: dict[str, Any]) -> None:
    # When
    functions = _of_type(template, "AWS::Serverless::Function")
    granted = {
        (name, action)
        for name, function in functions.items()
        for statement in _statements(function)
        for action in _actions(statement)
    }
    templates = {
        (name, next(iter(policy)))
        for name, function in functions.items()
        for policy in function["Properties"].get("Policies", [])
        if isinstance(policy, dict) and "Statement" not in policy
    }

    # Then
    assert {(name, action) for name, action in granted if action in UNCALLED_ACTIONS} == set()
    assert {(name, kind) for name, kind in templates if kind in BROAD_POLICY_TEMPLATES} == set()
    index_grants = {
        (name, str(statement["Action"]))
        for name, function in functions.items()
        for statement in _statements(function)
        if "index/" in json.dumps(statement["Resource"])
    }
    assert {action for _, action in index_grants} == {"dynamodb:Query"}
    assert {name for name, _ in index_grants} == INDEX_READERS


def test_each_function_may_call_exactly_its_codes_actions_on_the_table(template: dict[str, Any]) -> None:
    # When
    functions = _of_type(template, "AWS::Serverless::Function")
    granted = {
        name: {
            action.removeprefix("dynamodb:")
            for statement in _statements(function)
            if statement["Resource"] == TABLE
            for action in _actions(statement)
        }
        for name, function in functions.items()
    }

    # Then: the docs function reads nothing; no other function is left out
    assert {name: actions for name, actions in granted.items() if actions} == TABLE_ACTIONS


POLLER_ACTIONS = {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}
STREAM_ACTIONS = {"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"} | {
    "dynamodb:ListStreams"
}


def _resources(statement: dict[str, Any]) -> list[Any]:
    resource = statement["Resource"]
    return resource if isinstance(resource, list) else [resource]


def test_every_event_sourced_function_has_a_role_of_its_own(template: dict[str, Any]) -> None:
    # For an SQS or DynamoDB event SAM attaches AWSLambdaSQSQueueExecutionRole or
    # AWSLambdaDynamoDBExecutionRole to the role it generates: every queue or stream of the account.
    functions = _of_type(template, "AWS::Serverless::Function")

    # When
    sourced = {
        name
        for name, function in functions.items()
        if {e["Type"] for e in function["Properties"].get("Events", {}).values()} & {"SQS", "DynamoDB"}
    }
    with_role = {name for name, function in functions.items() if "Role" in function["Properties"]}

    # Then
    assert sourced == {"PushFunction", "SlowPushFunction", "OutboxFunction", "MetricsFunction"}
    assert with_role == sourced


def test_lambdas_pollers_may_read_only_the_event_sources_of_the_roles_functions(
    template: dict[str, Any],
) -> None:
    functions = _of_type(template, "AWS::Serverless::Function")
    roles = {
        f["Properties"]["Role"]["Fn::GetAtt"][0] for f in functions.values() if "Role" in f["Properties"]
    }
    for role in roles:
        # Given: the event sources of the functions that take this role
        users = [
            f for f in functions.values() if f["Properties"].get("Role") == {"Fn::GetAtt": [role, "Arn"]}
        ]
        queues = [
            e["Properties"]["Queue"]
            for f in users
            for e in f["Properties"]["Events"].values()
            if e["Type"] == "SQS"
        ]
        streams = [
            e["Properties"]["Stream"]
            for f in users
            for e in f["Properties"]["Events"].values()
            if e["Type"] == "DynamoDB"
        ]

        # When
        statements = _statements(users[0])
        receives = [s for s in statements if POLLER_ACTIONS & set(_actions(s))]
        stream_reads = [s for s in statements if STREAM_ACTIONS & set(_actions(s))]

        # Then: the pollers' actions, on those queues and that stream only
        if queues:
            assert [set(_actions(s)) for s in receives] == [POLLER_ACTIONS], role
            assert sorted(map(json.dumps, _resources(receives[0]))) == sorted(map(json.dumps, queues)), role
        else:
            assert receives == [], role
        if streams:
            assert streams == [{"Fn::GetAtt": ["Table", "StreamArn"]}]
            assert [(set(_actions(s)), s["Resource"]) for s in stream_reads] == [
                (STREAM_ACTIONS, {"Fn::Sub": "${Table.Arn}/stream/*"})
            ], role
        else:
            assert stream_reads == [], role


def test_sam_gives_no_function_a_managed_policy_over_the_account() -> None:
    from roomcast_dev.local_iam import function_roles
    from roomcast_dev.stack import LOCAL_PARAMETERS

    # When: every function's role as `sam deploy` creates it (policy templates and managed
    # policies expanded by samtranslator)
    roles = function_roles(PROJECT_ROOT / "template.yaml", STACK, REGION, LOCAL_PARAMETERS, queue_url)

    # Then: only CloudWatch Logs and X-Ray are granted on every resource
    broad = {
        (name, action)
        for name, role in roles.items()
        for policy in role.policies
        for statement in policy["Statement"]
        if "*" in _resources(statement)
        for action in _actions(statement)
    }
    assert {action.split(":")[0] for _, action in broad} == {"logs", "xray"}


def test_a_function_may_send_to_its_event_sources_on_failure_queues(template: dict[str, Any]) -> None:
    # Lambda sends a stream's given-up batches to the OnFailure destination with the function's
    # role: the grant stays even though no code of the function sends there.
    for name, function in _of_type(template, "AWS::Serverless::Function").items():
        destinations = [
            event["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]
            for event in function["Properties"].get("Events", {}).values()
            if "DestinationConfig" in event.get("Properties", {})
        ]
        sends = [
            resource
            for statement in _statements(function)
            if "sqs:SendMessage" in _actions(statement)
            for resource in (
                statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            )
        ]
        assert all(destination in sends for destination in destinations), name


def test_the_outbox_streams_ordered_records_at_exactly_the_statuses_that_move_a_key(
    template: dict[str, Any],
) -> None:
    """The stream filter lists statuses by hand (a pattern is JSON): the domain's list holds it."""
    from roomcast.messages import TERMINAL_STATUSES, DeliveryStatus

    # Given: the outbox's stream filters
    events = template["Resources"]["OutboxFunction"]["Properties"]["Events"]
    patterns = [
        json.loads(f["Pattern"])
        for event in events.values()
        for f in event.get("Properties", {}).get("FilterCriteria", {}).get("Filters", [])
    ]

    # When: the one that passes an ordered delivery's record
    (ordered,) = [p for p in patterns if "ordering" in p.get("dynamodb", {}).get("NewImage", {})]

    # Then: its statuses are every final one, and waiting (a record handed to an ordered failover)
    listed = ordered["dynamodb"]["NewImage"]["status"]["S"]
    assert set(listed) == {s.value for s in TERMINAL_STATUSES} | {DeliveryStatus.WAITING.value}
    assert len(listed) == len(set(listed))
