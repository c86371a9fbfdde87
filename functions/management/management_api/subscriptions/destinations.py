"""A PUSH subscription's AWS destination on create and PATCH (issue 53; docs/aws-destinations.md):
the request's fields, their rules (roomcast.destinations.model), and the dry send that proves the
role can deliver there before anything is stored."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

if TYPE_CHECKING:  # the sender (boto3) is imported by the first request that needs it
    from roomcast.destinations import DestinationSender

from roomcast.api import ApiModel
from roomcast.catalog import Subscription, SubscriptionType, WebhookFormat
from roomcast.destinations import Destination, DestinationKind, destination_problems
from roomcast.platform import InvalidRequest, now_iso

PING_EVENT_TYPE = "roomcast.ping"
_ARN_TEXT = Annotated[str, Field(min_length=1, max_length=2048)]


class DestinationBody(ApiModel):
    """An SQS queue (standard, or FIFO for an ordered subscription), an EventBridge event bus or an
    SNS topic in your account, and the role roomcast assumes there with your external ID."""

    kind: Literal["sqs", "eventbridge", "sns"]
    arn: _ARN_TEXT = Field(
        description="The queue's, bus's or topic's ARN, in roomcast's partition.",
        examples=["arn:aws:sqs:eu-west-1:111122223333:orders"],
    )
    roleArn: _ARN_TEXT = Field(
        description="The role roomcast assumes (its trust policy trusts roomcast's push role and "
        "asks for `externalId`; docs/aws-destinations.md).",
        examples=["arn:aws:iam::111122223333:role/roomcast-delivery"],
    )
    externalId: str = Field(
        min_length=2, max_length=1224, description="The external ID the role's trust policy asks for."
    )

    def to_domain(self) -> Destination:
        return Destination(DestinationKind(self.kind), self.arn, self.roleArn, self.externalId)


class DestinationRefused(InvalidRequest):
    """422 ``destination_refused``: the dry send did not get through (naming the role or the ARN)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(
            f"destination.{field} {problem}",
            code="destination_refused",
            details=[
                {"field": f"body.destination.{field}", "problem": problem, "type": "destination_refused"}
            ],
        )


def checked_destination(body: DestinationBody, partition: str, ordered: bool) -> Destination:
    """The destination, or 422 naming each field that is wrong."""
    destination = body.to_domain()
    problems = destination_problems(destination, partition, ordered)
    if problems:
        raise InvalidRequest(
            "; ".join(f"destination.{field} {problem}" for field, problem in problems.items()),
            details=[
                {"field": f"body.destination.{field}", "problem": problem, "type": "invalid_destination"}
                for field, problem in problems.items()
            ],
        )
    return destination


def dry_send(sender: DestinationSender, destination: Destination, subscription_id: str) -> None:
    """Send one ``roomcast.ping`` message there as the role: stored only when it gets through."""
    from roomcast.destinations import DestinationMessage

    ping = {"type": PING_EVENT_TYPE, "subscriptionId": subscription_id, "sentAt": now_iso()}
    message_id = f"ping_{uuid.uuid4().hex}"
    body = json.dumps(ping, separators=(",", ":"))
    result = sender.send(destination, DestinationMessage(message_id, PING_EVENT_TYPE, body, PING_EVENT_TYPE))
    if result.sent:
        return
    error = result.error or str(result.error_code)
    if error.startswith("assuming "):
        raise DestinationRefused(
            "roleArn",
            f"could not be assumed with this external ID ({error.split(': ', 1)[-1]}); its trust policy must "
            "trust roomcast's push role and ask for this externalId",
        )
    raise DestinationRefused("arn", f"refused a test message: {error}")


def with_destination(
    subscription: Subscription,
    body: DestinationBody | None,
    sender: DestinationSender | None,
    partition: str,
) -> Subscription:
    """``subscription`` with the destination ``body`` gives (None: the one it has), checked against
    its ordering, and a new one proven by a dry send. Recovery probes are HTTP pings: an AWS
    destination is not probed (an automatic disable waits for an operator)."""
    if body is not None:
        destination = checked_destination(body, partition, subscription.ordered)
        if destination != subscription.destination:
            if sender is None:
                raise InvalidRequest("AWS destinations are not set up here")
            dry_send(sender, destination, subscription.id)
    elif subscription.destination is not None:
        destination = subscription.destination
        problem = destination_problems(destination, partition, subscription.ordered).get("arn")
        if problem is not None:  # ordered turned on with a standard queue
            raise InvalidRequest(
                f"ordered: destination.arn {problem}",
                details=[{"field": "body.ordered", "problem": problem, "type": "invalid_destination"}],
            )
    else:
        return subscription
    updated = replace(subscription, destination=destination, push_url=None, recovery_probes=False)
    refuse_webhook_only(updated)
    return updated


def refuse_other_target(current: Subscription, changed: set[str]) -> None:
    """A PATCH changes a webhook's URL or an AWS destination, never one into the other (422)."""
    wrong = "pushUrl" if current.destination is not None else "destination"
    if wrong in changed and current.type is SubscriptionType.PUSH:
        problem = (
            "an AWS destination's subscription has no pushUrl"
            if wrong == "pushUrl"
            else ("a webhook subscription has no destination; subscribe anew for an AWS destination")
        )
        raise InvalidRequest(
            f"{wrong}: {problem}",
            details=[{"field": f"body.{wrong}", "problem": problem, "type": "not_allowed"}],
        )


def refuse_webhook_only(subscription: Subscription) -> None:
    """A CloudEvents format and the validation handshake are a webhook's (422 for a destination)."""
    wrong = [
        name
        for name, given in (
            ("format", subscription.format is WebhookFormat.CLOUDEVENTS),
            ("validationHandshake", subscription.validation_handshake),
        )
        if given
    ]
    if subscription.destination is not None and wrong:
        problem = "applies to webhooks only, not to an AWS destination"
        raise InvalidRequest(
            f"{', '.join(wrong)} {problem}",
            details=[
                {"field": f"body.{name}", "problem": problem, "type": "shape_mismatch"} for name in wrong
            ],
        )
