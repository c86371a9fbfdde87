"""Read template.yaml: resources, functions, routes, triggers and Firehose streams, intrinsics resolved.

The template is the source of truth; the local stack derives every name and setting from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_PATH = PROJECT_ROOT / "template.yaml"
LOCAL_ACCOUNT_ID = "123456789012"  # moto's default account


class _CfnLoader(yaml.SafeLoader):
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
    """A DynamoDB stream event source: the table's stream, filtered, in batches."""

    function_id: str
    table_id: str
    batch_size: int
    filter_patterns: tuple[dict[str, Any], ...]
    report_batch_item_failures: bool
    maximum_retry_attempts: int


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
    functions: dict[str, FunctionSpec] = field(default_factory=dict)
    routes: list[Route] = field(default_factory=list)
    sqs_triggers: list[SqsTrigger] = field(default_factory=list)
    stream_triggers: list[StreamTrigger] = field(default_factory=list)
    authorizer: Authorizer | None = None
    outputs: dict[str, str] = field(default_factory=dict)


class Resolver:
    """Resolves Ref, Fn::Sub, Fn::GetAtt, Fn::Join and Fn::Select against local physical names."""

    def __init__(
        self,
        template: dict[str, Any],
        stack_name: str,
        region: str,
        parameters: Mapping[str, str],
        queue_url: Callable[[str], str],
    ) -> None:
        self._resources: dict[str, Any] = template.get("Resources", {})
        self._stack_name = stack_name
        self._region = region
        self._queue_url = queue_url
        self._parameters = {
            name: str(parameters.get(name, spec.get("Default", "")))
            for name, spec in template.get("Parameters", {}).items()
        }
        self._pseudo = {
            "AWS::StackName": stack_name,
            "AWS::Region": region,
            "AWS::AccountId": LOCAL_ACCOUNT_ID,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
        }

    def physical_name(self, logical_id: str) -> str:
        resource = self._resources[logical_id]
        properties = resource.get("Properties", {})
        explicit = {
            "AWS::SQS::Queue": "QueueName",
            "AWS::DynamoDB::Table": "TableName",
            "AWS::S3::Bucket": "BucketName",
            "AWS::Logs::LogGroup": "LogGroupName",
            "AWS::Serverless::Function": "FunctionName",
            "AWS::SecretsManager::Secret": "Name",
            "AWS::KinesisFirehose::DeliveryStream": "DeliveryStreamName",
        }.get(resource["Type"])
        if explicit and explicit in properties:
            return str(self.resolve(properties[explicit]))
        name = f"{self._stack_name}-{logical_id}"
        if resource["Type"] == "AWS::S3::Bucket":
            return name.lower()
        if resource["Type"] == "AWS::SQS::Queue" and properties.get("FifoQueue"):
            return name + ".fifo"
        return name

    def ref(self, name: str) -> str:
        if name in self._pseudo:
            return self._pseudo[name]
        if name in self._parameters:
            return self._parameters[name]
        if name not in self._resources:
            raise KeyError(f"!Ref {name}: no such parameter or resource")
        if self._resources[name]["Type"] == "AWS::SQS::Queue":
            return self._queue_url(self.physical_name(name))
        return self.physical_name(name)

    def get_att(self, logical_id: str, attribute: str) -> str:
        resource_type = self._resources[logical_id]["Type"]
        name = self.physical_name(logical_id)
        service = {
            "AWS::SQS::Queue": "sqs",
            "AWS::DynamoDB::Table": "dynamodb",
            "AWS::S3::Bucket": "s3",
            "AWS::Serverless::Function": "lambda",
            "AWS::Logs::LogGroup": "logs",
            "AWS::KinesisFirehose::DeliveryStream": "firehose",
        }.get(resource_type, "local")
        if attribute == "Arn":
            if service == "dynamodb":
                return f"arn:aws:dynamodb:{self._region}:{LOCAL_ACCOUNT_ID}:table/{name}"
            if service == "s3":
                return f"arn:aws:s3:::{name}"
            if service == "lambda":
                return f"arn:aws:lambda:{self._region}:{LOCAL_ACCOUNT_ID}:function:{name}"
            if service == "firehose":
                return f"arn:aws:firehose:{self._region}:{LOCAL_ACCOUNT_ID}:deliverystream/{name}"
            return f"arn:aws:{service}:{self._region}:{LOCAL_ACCOUNT_ID}:{name}"
        if attribute == "QueueName":
            return name
        if attribute == "QueueUrl":
            return self._queue_url(name)
        raise KeyError(f"!GetAtt {logical_id}.{attribute} is not supported locally")

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key == "Ref":
                return self.ref(argument)
            if key == "Fn::GetAtt":
                return self.get_att(argument[0], argument[1])
            if key == "Fn::Sub":
                return self._sub(argument)
            if key == "Fn::Join":
                return str(argument[0]).join(str(self.resolve(v)) for v in argument[1])
            if key == "Fn::Select":
                return self.resolve(argument[1])[int(argument[0])]
        return {k: self.resolve(v) for k, v in value.items()}

    def _sub(self, argument: Any) -> str:
        text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], argument[1])

        def replace(match: re.Match[str]) -> str:
            escaped, name = match.group(1), match.group(2)
            if escaped:
                return "${" + name + "}"  # ${!Literal} renders as ${Literal}
            if name in variables:
                return str(self.resolve(variables[name]))
            if "." in name:
                logical_id, attribute = name.split(".", 1)
                return self.get_att(logical_id, attribute)
            return self.ref(name)

        return re.sub(r"\$\{(!?)([^}]+)\}", replace, text)


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
    root = path.parent

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

    # Queues may refer to each other (redrive policies): resolve their properties once all names exist.
    for logical_id, spec in model.queues.items():
        model.queues[logical_id] = {key: resolver.resolve(value) for key, value in spec.items()}

    for logical_id, resource in resources.items():
        if resource["Type"] == "AWS::Serverless::HttpApi":
            auth = resource.get("Properties", {}).get("Auth", {})
            default_name = auth.get("DefaultAuthorizer")
            if default_name:
                spec = auth["Authorizers"][default_name]
                identity = spec.get("Identity", {})
                model.authorizer = Authorizer(
                    function_id=spec["FunctionArn"]["Fn::GetAtt"][0],
                    identity_headers=tuple(h.lower() for h in identity.get("Headers", ["Authorization"])),
                    cache_ttl_seconds=int(resolver.resolve(identity.get("ReauthorizeEvery", 300))),
                )
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        properties = resource.get("Properties", {})
        environment = {
            **function_globals.get("Environment", {}).get("Variables", {}),
            **properties.get("Environment", {}).get("Variables", {}),
        }
        layers = properties.get("Layers", function_globals.get("Layers", []))
        layer_paths = tuple(
            root / resources[layer["Ref"]]["Properties"]["ContentUri"] for layer in layers if "Ref" in layer
        )
        model.functions[logical_id] = FunctionSpec(
            logical_id=logical_id,
            name=resolver.physical_name(logical_id),
            handler=properties["Handler"],
            code_path=root / properties["CodeUri"],
            layer_paths=layer_paths,
            environment={name: str(resolver.resolve(value)) for name, value in environment.items()},
            timeout_seconds=_sam_timeout(properties, function_globals, 3),
            memory_mb=int(properties.get("MemorySize", function_globals.get("MemorySize", 128))),
        )
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
                    )
                )
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
                            event_properties.get("MaximumBatchingWindowInSeconds", 0)
                        ),
                        report_batch_item_failures="ReportBatchItemFailures"
                        in event_properties.get("FunctionResponseTypes", []),
                        maximum_concurrency=int(scaling.get("MaximumConcurrency", 2)),
                    )
                )

    for name, output in template.get("Outputs", {}).items():
        try:
            model.outputs[name] = str(resolver.resolve(output["Value"]))
        except KeyError:
            continue
    return model
