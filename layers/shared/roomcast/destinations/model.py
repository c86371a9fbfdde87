"""An AWS destination and the rules its ARNs follow. Pure: no AWS here.

``{"kind": "sqs" | "eventbridge" | "sns", "arn": …, "roleArn": …, "externalId": …}``: the target's
ARN (a queue, an event bus, a topic) in the customer's account, the role roomcast assumes there,
and the external ID that role's trust policy asks for (AWS's rule against the confused deputy)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property


class DestinationKind(StrEnum):
    SQS = "sqs"
    EVENTBRIDGE = "eventbridge"
    SNS = "sns"

    @property
    def service(self) -> str:
        """The service part of the target's ARN."""
        return {"sqs": "sqs", "eventbridge": "events", "sns": "sns"}[self.value]


# arn:partition:service:region:account:resource
_ARN = re.compile(
    r"arn:(?P<partition>aws(?:-[a-z]+)*):(?P<service>[a-z0-9-]+):(?P<region>[a-z0-9-]*):"
    r"(?P<account>\d{12}|):(?P<resource>.+)"
)
_QUEUE_OR_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,80}(\.fifo)?")
_EVENT_BUS = re.compile(r"event-bus/[A-Za-z0-9._/-]{1,256}")
_ROLE = re.compile(r"role/[\w+=,.@/-]{1,576}")
_EXTERNAL_ID = re.compile(r"[\w+=,.@:/-]{2,1224}")
_REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-\d")


@dataclass(frozen=True)
class Arn:
    partition: str
    service: str
    region: str
    account: str
    resource: str

    @classmethod
    def parse(cls, text: str) -> Arn | None:
        found = _ARN.fullmatch(text)
        return None if found is None else cls(**found.groupdict())


@dataclass(frozen=True)
class Destination:
    kind: DestinationKind
    arn: str
    role_arn: str
    external_id: str

    @cached_property
    def target(self) -> Arn:
        parsed = Arn.parse(self.arn)
        if parsed is None:
            raise ValueError(f"not an ARN: {self.arn[:80]}")
        return parsed

    @property
    def fifo(self) -> bool:
        """An SQS FIFO queue or SNS FIFO topic: sends carry a message group (the ordering key)."""
        return self.kind is not DestinationKind.EVENTBRIDGE and self.target.resource.endswith(".fifo")

    @property
    def queue_url(self) -> str:
        """An SQS queue's URL, from its ARN (no lookup)."""
        target = self.target
        return f"https://sqs.{target.region}.amazonaws.com/{target.account}/{target.resource}"


def partition_of_region(region: str) -> str:
    """The partition a region is in (the one roomcast runs in is the only one it delivers to)."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def destination_problems(destination: Destination, partition: str, ordered: bool) -> dict[str, str]:
    """What is wrong with ``destination``, by field (``arn``, ``roleArn``, ``externalId``); empty
    when nothing. ``ordered``: its subscription's ordering keys need a FIFO queue or topic."""
    problems: dict[str, str] = {}
    target = Arn.parse(destination.arn)
    kind = destination.kind
    if target is None:
        problems["arn"] = "is not an ARN (arn:partition:service:region:account:resource)"
    elif target.partition != partition:
        problems["arn"] = f"is in partition {target.partition}; roomcast here delivers in {partition} only"
    elif target.service != kind.service:
        problems["arn"] = f"is an {target.service} ARN; a {kind.value} destination is an {kind.service} one"
    elif not _REGION.fullmatch(target.region) or not target.account:
        problems["arn"] = "names no region or account"
    elif kind is DestinationKind.EVENTBRIDGE and not _EVENT_BUS.fullmatch(target.resource):
        problems["arn"] = "is not an event bus (…:event-bus/<name>)"
    elif kind is not DestinationKind.EVENTBRIDGE and not _QUEUE_OR_TOPIC.fullmatch(target.resource):
        problems["arn"] = f"is not an {kind.value} {'queue' if kind is DestinationKind.SQS else 'topic'} name"
    elif ordered and not destination.fifo:
        problems["arn"] = "an ordered subscription delivers to a FIFO queue or topic only (name ending .fifo)"
    role = Arn.parse(destination.role_arn)
    if role is None or role.service != "iam" or not role.account or not _ROLE.fullmatch(role.resource):
        problems["roleArn"] = "is not an IAM role ARN (arn:partition:iam::account:role/name)"
    elif role.partition != partition:
        problems["roleArn"] = f"is in partition {role.partition}; roomcast here runs in {partition}"
    if not _EXTERNAL_ID.fullmatch(destination.external_id):
        problems["externalId"] = "is 2 to 1224 characters of letters, digits and +=,.@:/-_"
    return problems
