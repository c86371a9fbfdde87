"""CloudFormation's intrinsic functions (Ref, Fn::Sub, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split,
Fn::If with the template's conditions) and pseudo parameters, resolved against the local stack's
physical names, as CloudFormation would resolve them on deployment."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID

# What ``!Ref AWS::NoValue`` resolves to: the property or list entry holding it is left out.
_NO_VALUE: Any = object()


def local_stack_id(stack_name: str, region: str) -> str:
    """A stack id as CloudFormation makes one (its last part a UUID), the same for a stack name."""
    unique = uuid.uuid5(uuid.NAMESPACE_URL, f"roomcast-local/{region}/{stack_name}")
    return f"arn:aws:cloudformation:{region}:{LOCAL_ACCOUNT_ID}:stack/{stack_name}/{unique}"


class Resolver:
    """Resolves Ref, Fn::Sub, Fn::GetAtt, Fn::Join, Fn::Select and Fn::Split against local physical
    names."""

    def __init__(
        self,
        template: dict[str, Any],
        stack_name: str,
        region: str,
        parameters: Mapping[str, str],
        queue_url: Callable[[str], str],
    ) -> None:
        self._resources: dict[str, Any] = template.get("Resources", {})
        self._conditions: dict[str, Any] = template.get("Conditions", {})
        self._stack_name = stack_name
        self._region = region
        self._queue_url = queue_url
        self._parameters = {
            name: str(parameters.get(name, spec.get("Default", "")))
            for name, spec in template.get("Parameters", {}).items()
        }
        self._pseudo = {
            "AWS::StackName": stack_name,
            "AWS::StackId": local_stack_id(stack_name, region),
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
            "AWS::Scheduler::ScheduleGroup": "Name",
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
        if name == "AWS::NoValue":
            return _NO_VALUE  # type: ignore[no-any-return]
        if name in self._pseudo:
            return self._pseudo[name]
        if name in self._parameters:
            return self._parameters[name]
        if name not in self._resources:
            raise KeyError(f"!Ref {name}: no such parameter or resource")
        if self._resources[name]["Type"] == "AWS::SQS::Queue":
            return self._queue_url(self.physical_name(name))
        if self._resources[name]["Type"] == "AWS::SNS::Topic":  # a topic's Ref is its ARN
            return f"arn:aws:sns:{self._pseudo['AWS::Region']}:{LOCAL_ACCOUNT_ID}:{self.physical_name(name)}"
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

    def condition(self, name: str) -> bool:
        """Whether one of the template's conditions holds with this stack's parameters."""
        return self._holds(self._conditions[name])

    def _holds(self, expression: Any) -> bool:
        ((function, argument),) = expression.items()
        if function == "Condition":
            return self.condition(argument)
        if function == "Fn::Equals":
            return str(self.resolve(argument[0])) == str(self.resolve(argument[1]))
        if function == "Fn::Not":
            return not self._holds(argument[0])
        if function == "Fn::And":
            return all(self._holds(part) for part in argument)
        if function == "Fn::Or":
            return any(self._holds(part) for part in argument)
        raise KeyError(f"condition function {function} is not supported locally")

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [r for r in (self.resolve(v) for v in value) if r is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key == "Ref":
                return self.ref(argument)
            if key == "Fn::If":
                name, when_true, when_false = argument
                return self.resolve(when_true if self.condition(name) else when_false)
            if key == "Fn::GetAtt":
                return self.get_att(argument[0], argument[1])
            if key == "Fn::Sub":
                return self._sub(argument)
            if key == "Fn::Join":
                return str(argument[0]).join(str(self.resolve(v)) for v in argument[1])
            if key == "Fn::Select":
                return self.resolve(argument[1])[int(argument[0])]
            if key == "Fn::Split":
                return str(self.resolve(argument[1])).split(str(argument[0]))
        resolved = {k: self.resolve(v) for k, v in value.items()}
        return {k: v for k, v in resolved.items() if v is not _NO_VALUE}

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
