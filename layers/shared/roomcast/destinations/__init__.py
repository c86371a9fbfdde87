"""AWS destinations: a PUSH subscription that delivers into an SQS queue, an EventBridge event bus or
an SNS topic in the customer's account, through a role the customer's account trusts roomcast to
assume with an external ID (issue 53; docs/aws-destinations.md, ADR 0051).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.destinations.model import (
        Arn as Arn,
        Destination as Destination,
        DestinationKind as DestinationKind,
        destination_problems as destination_problems,
        partition_of_region as partition_of_region,
    )
    from roomcast.destinations.send import (
        DestinationMessage as DestinationMessage,
        DestinationSender as DestinationSender,
        SendResult as SendResult,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
