"""One message into an AWS destination, as the customer's role: an SQS message, an EventBridge
event or an SNS message, with the message's id and event type as attributes (the ordering key as
a FIFO queue's or topic's message group, the message id as its deduplication id). What AWS
answers comes back as a ``SendResult``: sent, or AWS's error code and message (an attempt that
failed, retried on the room's schedule like a webhook's)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from roomcast.destinations.model import Destination, DestinationKind
from roomcast.destinations.roles import AssumedRoles, RoleRefused

SOURCE = "roomcast"  # an EventBridge event's source
_CREDENTIALS_REFUSED = frozenset({"ExpiredToken", "InvalidClientTokenId", "UnrecognizedClientException"})


@dataclass(frozen=True)
class DestinationMessage:
    message_id: str
    event_type: str
    body: str  # JSON: roomcast's webhook body (its payload after the transformation)
    group_id: str | None = None  # FIFO: the ordering key (else the message id)


@dataclass(frozen=True)
class SendResult:
    error_code: str | None  # None: sent
    error: str | None
    latency_ms: int

    @property
    def sent(self) -> bool:
        return self.error_code is None


class DestinationSender:
    def __init__(self, roles: AssumedRoles | None = None) -> None:
        self.roles = roles or AssumedRoles()

    def send(self, destination: Destination, message: DestinationMessage) -> SendResult:
        from botocore.exceptions import BotoCoreError, ClientError

        started = time.monotonic()
        try:
            code = self._send(destination, message)
            error = None if code is None else f"{code[0]}: {code[1]}"
            return SendResult(None if code is None else code[0], error, _since(started))
        except RoleRefused as refused:
            return SendResult(refused.code, f"assuming {destination.role_arn}: {refused}", _since(started))
        except ClientError as failed:
            details = failed.response.get("Error", {})
            code_name = str(details.get("Code", "Error"))
            if code_name in _CREDENTIALS_REFUSED:
                self.roles.forget(destination.role_arn, destination.external_id)
            return SendResult(code_name, f"{code_name}: {details.get('Message', '')}"[:500], _since(started))
        except BotoCoreError as failed:  # no answer: a network error, a timeout
            return SendResult("NetworkError", f"NetworkError: {failed}"[:500], _since(started))

    def _send(self, destination: Destination, message: DestinationMessage) -> tuple[str, str] | None:
        target = destination.target
        client = self.roles.client(
            destination.role_arn, destination.external_id, _service(destination.kind), target.region
        )
        attributes = {
            "messageId": {"DataType": "String", "StringValue": message.message_id},
            "eventType": {"DataType": "String", "StringValue": message.event_type},
        }
        fifo: dict[str, Any] = {}
        if destination.fifo:
            fifo = {
                "MessageGroupId": message.group_id or message.message_id,
                "MessageDeduplicationId": message.message_id,
            }
        if destination.kind is DestinationKind.SQS:
            client.send_message(
                QueueUrl=destination.queue_url, MessageBody=message.body, MessageAttributes=attributes, **fifo
            )
        elif destination.kind is DestinationKind.SNS:
            client.publish(
                TopicArn=destination.arn, Message=message.body, MessageAttributes=attributes, **fifo
            )
        else:
            entry = {
                "EventBusName": destination.arn,
                "Source": SOURCE,
                "DetailType": message.event_type,
                "Detail": message.body,
            }
            answer = client.put_events(Entries=[entry])
            if answer.get("FailedEntryCount"):
                failed = answer["Entries"][0]
                return str(failed.get("ErrorCode", "Error")), str(failed.get("ErrorMessage", ""))
        return None


def _service(kind: DestinationKind) -> str:
    return {DestinationKind.SQS: "sqs", DestinationKind.SNS: "sns", DestinationKind.EVENTBRIDGE: "events"}[
        kind
    ]


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
