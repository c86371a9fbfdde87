"""Read template.yaml: resources, functions, routes, triggers and Firehose streams, intrinsics resolved
(by ``template_intrinsics``), into the ``StackModel`` the local stack is built from.

The template is the source of truth; the local stack derives every name and setting from it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from roomcast_dev.rate_schedules import RateTrigger, rate_trigger
from roomcast_dev.template_intrinsics import Resolver

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_PATH = PROJECT_ROOT / "template.yaml"


# libyaml's safe loader where PyYAML was built with it (its wheels are): the same document, read
# ~9x faster (35 against 300 ms for template.yaml; every integration test reads it for its model).
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CfnLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """YAML loader that turns CloudFormation short tags (!Ref, !Sub, ...) into their long form."""


def _construct_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


def load_template(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        loaded = yaml.load(handle, Loader=_CfnLoader)  # noqa: S506 - a SafeLoader subclass
    if not isinstance(loaded, dict):
        raise ValueError(f"{path} is not a template")
    return loaded


@dataclass(frozen=True)
class Route:
    method: str  # GET, POST, ... or ANY
    path: str  # /rooms/{roomId}, /{proxy+}
    function_id: str
    authorized: bool


@dataclass(frozen=True)
class SqsTrigger:
    function_id: str
    queue_id: str
    batch_size: int
    batching_window_seconds: float
    report_batch_item_failures: bool
    maximum_concurrency: int


@dataclass(frozen=True)
class StreamTrigger:
    """A DynamoDB stream event source: the table's stream, filtered, in batches (0 s windows: none)."""

    function_id: str
    table_id: str
    batch_size: int
    filter_patterns: tuple[dict[str, Any], ...]
    report_batch_item_failures: bool
    maximum_retry_attempts: int
    tumbling_window_seconds: float = 0.0  # TumblingWindowInSeconds: stateful windows
    batching_window_seconds: float = 0.0  # MaximumBatchingWindowInSeconds


@dataclass(frozen=True)
class FunctionSpec:
    logical_id: str
    name: str
    handler: str
    code_path: Path
    layer_paths: tuple[Path, ...]
    environment: Mapping[str, str]
    timeout_seconds: int
    memory_mb: int


@dataclass
class Authorizer:
    function_id: str
    identity_headers: tuple[str, ...]
    cache_ttl_seconds: int


@dataclass
class StackModel:
    """What the local stack needs of the template, with every intrinsic resolved."""

    stack_name: str
    region: str
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    queues: dict[str, dict[str, Any]] = field(default_factory=dict)
    buckets: dict[str, dict[str, Any]] = field(default_factory=dict)
    secrets: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Firehose streams: DeliveryStreamName and the template's properties, resolved.
    delivery_streams: dict[str, dict[str, Any]] = field(default_factory=dict)
    # EventBridge Scheduler groups, by logical id: their names.
    schedule_groups: dict[str, str] = field(default_factory=dict)
    topics: dict[str, str] = field(default_factory=dict)  # SNS topics, by logical id: their names
    functions: dict[str, FunctionSpec] = field(default_factory=dict)
    routes: list[Route] = field(default_factory=list)
    sqs_triggers: list[SqsTrigger] = field(default_factory=list)
    stream_triggers: list[StreamTrigger] = field(default_factory=list)
    rate_triggers: list[RateTrigger] = field(default_factory=list)
    authorizer: Authorizer | None = None
    outputs: dict[str, str] = field(default_factory=dict)


def _sam_timeout(properties: Mapping[str, Any], globals_: Mapping[str, Any], default: int) -> int:
    return int(properties.get("Timeout", globals_.get("Timeout", default)))


def read_stack(
    stack_name: str,
    region: str,
    parameters: Mapping[str, str],
    queue_url: Callable[[str], str],
    path: Path = TEMPLATE_PATH,
) -> StackModel:
    template = load_template(path)
    resolver = Resolver(template, stack_name, region, parameters, queue_url)
    resources: dict[str, Any] = template.get("Resources", {})
    function_globals: dict[str, Any] = template.get("Globals", {}).get("Function", {})
    model = StackModel(stack_name=stack_name, region=region)
    _read_resources(model, resources, resolver)
    for logical_id, resource in resources.items():
        if resource["Type"] == "AWS::Serverless::HttpApi":
            model.authorizer = _read_authorizer(resource, resolver) or model.authorizer
        if resource["Type"] == "AWS::Serverless::Function":
            properties = resource.get("Properties", {})
            model.functions[logical_id] = _read_function(
                logical_id, properties, function_globals, resources, resolver, path.parent
            )
            _read_events(model, logical_id, properties, resolver)
    for name, output in template.get("Outputs", {}).items():
        try:
            model.outputs[name] = str(resolver.resolve(output["Value"]))
        except KeyError:
            continue
    return model


def _read_resources(model: StackModel, resources: dict[str, Any], resolver: Resolver) -> None:
    """The tables, queues, buckets, secrets, Firehose streams and schedule groups."""
    for logical_id, resource in resources.items():
        kind = resource["Type"]
        properties = resource.get("Properties", {})
        if kind == "AWS::DynamoDB::Table":
            model.tables[logical_id] = {
                "TableName": resolver.physical_name(logical_id),
                **resolver.resolve(properties),
            }
        elif kind == "AWS::SQS::Queue":
            model.queues[logical_id] = {"QueueName": resolver.physical_name(logical_id), **properties}
        elif kind == "AWS::S3::Bucket":
            model.buckets[logical_id] = {"BucketName": resolver.physical_name(logical_id)}
        elif kind == "AWS::SecretsManager::Secret":
            # Ref gives the ARN on AWS and the name here: Secrets Manager takes either as SecretId.
            generate = properties.get("GenerateSecretString", {})
            model.secrets[logical_id] = {
                "Name": resolver.physical_name(logical_id),
                "Length": int(generate.get("PasswordLength", 32)),
            }
        elif kind == "AWS::KinesisFirehose::DeliveryStream":
            model.delivery_streams[logical_id] = {
                "DeliveryStreamName": resolver.physical_name(logical_id),
                **resolver.resolve(properties),
            }
        elif kind == "AWS::Scheduler::ScheduleGroup":
            model.schedule_groups[logical_id] = resolver.physical_name(logical_id)
        elif kind == "AWS::SNS::Topic":
            model.topics[logical_id] = resolver.physical_name(logical_id)

    # Queues may refer to each other (redrive policies): resolve their properties once all names exist.
    for logical_id, spec in model.queues.items():
        model.queues[logical_id] = {key: resolver.resolve(value) for key, value in spec.items()}


def _read_authorizer(resource: dict[str, Any], resolver: Resolver) -> Authorizer | None:
    """An HTTP API's default authorizer, if it has one."""
    auth = resource.get("Properties", {}).get("Auth", {})
    default_name = auth.get("DefaultAuthorizer")
    if not default_name:
        return None
    spec = auth["Authorizers"][default_name]
    identity = spec.get("Identity", {})
    return Authorizer(
        function_id=spec["FunctionArn"]["Fn::GetAtt"][0],
        identity_headers=tuple(h.lower() for h in identity.get("Headers", ["Authorization"])),
        cache_ttl_seconds=int(resolver.resolve(identity.get("ReauthorizeEvery", 300))),
    )


def _read_function(
    logical_id: str,
    properties: dict[str, Any],
    function_globals: dict[str, Any],
    resources: dict[str, Any],
    resolver: Resolver,
    root: Path,
) -> FunctionSpec:
    """A function with the template's Globals applied and its environment resolved."""
    environment = {
        **function_globals.get("Environment", {}).get("Variables", {}),
        **properties.get("Environment", {}).get("Variables", {}),
    }
    layers = properties.get("Layers", function_globals.get("Layers", []))
    layer_paths = tuple(
        root / resources[layer["Ref"]]["Properties"]["ContentUri"] for layer in layers if "Ref" in layer
    )
    return FunctionSpec(
        logical_id=logical_id,
        name=resolver.physical_name(logical_id),
        handler=properties["Handler"],
        code_path=root / properties["CodeUri"],
        layer_paths=layer_paths,
        environment={name: str(resolver.resolve(value)) for name, value in environment.items()},
        timeout_seconds=_sam_timeout(properties, function_globals, 3),
        memory_mb=int(properties.get("MemorySize", function_globals.get("MemorySize", 128))),
    )


def _read_events(model: StackModel, logical_id: str, properties: dict[str, Any], resolver: Resolver) -> None:
    """A function's events: its HTTP API routes, its DynamoDB stream and SQS triggers."""
    for event in properties.get("Events", {}).values():
        event_properties = event.get("Properties", {})
        if event["Type"] == "HttpApi":
            auth_name = event_properties.get("Auth", {}).get("Authorizer")
            model.routes.append(
                Route(
                    method=str(event_properties.get("Method", "ANY")).upper(),
                    path=event_properties.get("Path", "/{proxy+}"),
                    function_id=logical_id,
                    authorized=auth_name != "NONE",
                )
            )
        elif event["Type"] == "DynamoDB":
            filters = event_properties.get("FilterCriteria", {}).get("Filters", [])
            model.stream_triggers.append(
                StreamTrigger(
                    function_id=logical_id,
                    table_id=event_properties["Stream"]["Fn::GetAtt"][0],
                    batch_size=int(event_properties.get("BatchSize", 100)),
                    filter_patterns=tuple(json.loads(f["Pattern"]) for f in filters),
                    report_batch_item_failures="ReportBatchItemFailures"
                    in event_properties.get("FunctionResponseTypes", []),
                    maximum_retry_attempts=int(event_properties.get("MaximumRetryAttempts", -1)),
                    # both may be a parameter's Ref (the metrics window is one)
                    tumbling_window_seconds=float(
                        resolver.resolve(event_properties.get("TumblingWindowInSeconds", 0))
                    ),
                    batching_window_seconds=float(
                        resolver.resolve(event_properties.get("MaximumBatchingWindowInSeconds", 0))
                    ),
                )
            )
        elif event["Type"] == "Schedule":
            model.rate_triggers.append(rate_trigger(logical_id, event_properties, resolver.resolve))
        elif event["Type"] == "SQS":
            queue_ref = event_properties["Queue"]
            queue_id = queue_ref["Fn::GetAtt"][0] if "Fn::GetAtt" in queue_ref else queue_ref["Ref"]
            scaling = event_properties.get("ScalingConfig", {})
            model.sqs_triggers.append(
                SqsTrigger(
                    function_id=logical_id,
                    queue_id=queue_id,
                    batch_size=int(event_properties.get("BatchSize", 10)),
                    batching_window_seconds=float(
                        resolver.resolve(event_properties.get("MaximumBatchingWindowInSeconds", 0))
                    ),
                    report_batch_item_failures="ReportBatchItemFailures"
                    in event_properties.get("FunctionResponseTypes", []),
                    maximum_concurrency=int(resolver.resolve(scaling.get("MaximumConcurrency", 2))),
                )
            )
