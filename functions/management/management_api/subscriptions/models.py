"""Subscription requests and responses (the public contract; see /openapi.json).

Creation is a union discriminated by ``type``, and each type's schema has only its own fields. A
PATCH body is checked twice: against every field a subscription can have (the documented schema),
then against the fields of the subscription's own type (``SubscriptionPatch.for_type``), so
``pushUrl`` on a PULL subscription is refused by a model, not by service code.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from management_api.fields import (
    AckWaitMs,
    DeliveryAttempts,
    DeliveryDelayMs,
    DeliveryDelayMultiplier,
    DisableAfterFailingMs,
    EventTypes,
    Jitter,
    MaxConcurrency,
    MaxDelayMs,
    PushUrl,
    RateLimitPerSecond,
    RetryScheduleMs,
    TimeoutMs,
)
from management_api.ordering_keys.models import OrderingFields
from management_api.subscriptions.destinations import DestinationBody
from management_api.subscriptions.examples import DESTINATION_EXAMPLE
from management_api.subscriptions.shaping import SHAPING_FIELDS, WebhookShaping
from roomcast.access import CONSUMER_ID_PATTERN
from roomcast.api import NOT_NULL, ApiModel, SubscriptionId, examples
from roomcast.catalog import DeliveryOverrides, SubscriptionType
from roomcast.filters import FilterPolicyBody
from roomcast.platform import InvalidRequest, from_camel_fields

Status = Literal["active", "paused", "disabled"]
PUSH_ONLY_FIELDS = (
    "maxConcurrency",
    "rateLimitPerSecond",
    "disableAfterFailingMs",
    "recoveryProbes",
    *SHAPING_FIELDS,
)


class Overrides(ApiModel):
    """The room's policy fields a subscription may override (never the expiry); null = the room's."""

    deliveryDelayMs: DeliveryDelayMs | None = None
    deliveryDelayMultiplier: DeliveryDelayMultiplier | None = None
    deliveryAttempts: DeliveryAttempts | None = None
    failoverSubscriptionId: SubscriptionId | None = Field(
        default=None, description="Another subscription of the room that gets the message instead of dead."
    )
    # Not the room's: a subscription's own shaping of the schedule.
    maxDelayMs: MaxDelayMs | None = None
    jitter: Jitter | None = None
    retryScheduleMs: RetryScheduleMs | None = None

    def overrides(self) -> DeliveryOverrides:
        return from_camel_fields(DeliveryOverrides, self.model_dump())


class _Filter(ApiModel):
    filterPolicy: FilterPolicyBody | None = None


class _PushControls(ApiModel):
    """PUSH only (400 `push_only` on a PULL subscription): flow control and auto-disable."""

    maxConcurrency: MaxConcurrency | None = None
    rateLimitPerSecond: RateLimitPerSecond | None = None
    disableAfterFailingMs: DisableAfterFailingMs | None = None
    recoveryProbes: bool | None = Field(
        default=None,
        description="Once disabled automatically (failing for disableAfterFailingMs), probe the endpoint "
        "with a signed roomcast.ping request, backing off from 1 minute to 1 hour, and re-enable it when "
        "it answers 2xx; its deliveries wait meanwhile. Default true; null puts it back to true.",
    )


def _refuse_push_only(value: object) -> object:
    raise PydanticCustomError("push_only", "applies to PUSH subscriptions only")


# A PUSH-only field on a PULL create: left out of the documented schema (which refuses it as an
# unknown field, so generated clients never send it), refused here with a type of its own, which
# the API answers as 400 `push_only`, as it answers a PATCH giving one to a PULL subscription.
_PushOnly = SkipJsonSchema[Annotated[Any, AfterValidator(_refuse_push_only)]]


ConsumerId = Annotated[
    str,
    Field(
        pattern=CONSUMER_ID_PATTERN,
        description=(
            "Your own id for the customer this subscription belongs to (`A-Za-z0-9_.:@-`, at most "
            "128): lists filter on it (`?consumerId=`), and a portal session for that consumer "
            "sees and changes only its subscriptions (docs/portal.md). Set on create only."
        ),
        examples=["acme"],
    ),
]


class _SubscriptionCreate(Overrides, _Filter, OrderingFields):
    eventTypes: EventTypes = []
    consumerId: ConsumerId | None = None


class PushSubscriptionCreate(_SubscriptionCreate, _PushControls, WebhookShaping):
    model_config = examples(
        {"type": "PUSH", "pushUrl": "https://hooks.example.com/roomcast"},
        {
            "type": "PUSH",
            "pushUrl": "https://hooks.example.com/roomcast",
            "eventTypes": [{"name": "order.created"}],
            "filterPolicy": {"amount": [{"numeric": [">=", 100]}]},
            "deliveryAttempts": 8,
            "maxDelayMs": 3600000,
            "jitter": 0.2,
            "timeoutMs": 10000,
            "maxConcurrency": 5,
            "rateLimitPerSecond": 20,
        },
        {"type": "PUSH", "destination": DESTINATION_EXAMPLE},
        # A webhook's URL, or an AWS destination: one of the two.
        schema={"oneOf": [{"required": ["pushUrl"]}, {"required": ["destination"]}]},
    )

    type: Literal["PUSH"]
    pushUrl: Annotated[PushUrl | None, NOT_NULL] = Field(
        default=None, description="A webhook's URL (or give `destination`)."
    )
    destination: Annotated[DestinationBody | None, NOT_NULL] = Field(
        default=None, description="An AWS queue, bus or topic to deliver into instead of a URL."
    )
    timeoutMs: TimeoutMs | None = None

    @model_validator(mode="after")
    def _url_or_destination(self) -> Self:
        """Neither: ``pushUrl`` is missing (as before destinations); both: ``destination`` is one too many."""
        if self.pushUrl is None and self.destination is None:
            raise ValidationError.from_exception_data(
                "PushSubscriptionCreate", [{"type": "missing", "loc": ("pushUrl",), "input": {}}]
            )
        if self.pushUrl is not None and self.destination is not None:
            error = PydanticCustomError("url_or_destination", "give pushUrl or destination, not both")
            raise ValidationError.from_exception_data(
                "PushSubscriptionCreate", [{"type": error, "loc": ("destination",), "input": {}}]
            )
        return self


class PullSubscriptionCreate(_SubscriptionCreate):
    model_config = examples({"type": "PULL"}, {"type": "PULL", "ackWaitMs": 60000, "deliveryAttempts": 3})

    type: Literal["PULL"]
    ackWaitMs: AckWaitMs | None = None
    maxConcurrency: _PushOnly = None
    rateLimitPerSecond: _PushOnly = None
    disableAfterFailingMs: _PushOnly = None
    recoveryProbes: _PushOnly = None
    transformation: _PushOnly = None
    format: _PushOnly = None
    cloudEventsMode: _PushOnly = None
    validationHandshake: _PushOnly = None


SubscriptionCreate = Annotated[PushSubscriptionCreate | PullSubscriptionCreate, Field(discriminator="type")]


class _SubscriptionPatchFields(Overrides, _PushControls, WebhookShaping, _Filter, OrderingFields):
    eventTypes: Annotated[EventTypes | None, NOT_NULL] = None
    status: Annotated[Status | None, NOT_NULL] = Field(
        default=None,
        description="`paused`: messages are still routed to it but its deliveries wait (not attempts, "
        "never dead for it) until it is `active` again or they expire. `disabled`: nothing is routed "
        "to it and queued deliveries end dead.",
    )


class PushSubscriptionPatch(_SubscriptionPatchFields):
    pushUrl: Annotated[PushUrl | None, NOT_NULL] = None
    destination: Annotated[DestinationBody | None, NOT_NULL] = Field(
        default=None,
        description="A new AWS destination (for a subscription that has one): sent a test first.",
    )
    timeoutMs: TimeoutMs | None = Field(default=None, description="null: back to the default.")


class PullSubscriptionPatch(_SubscriptionPatchFields):
    ackWaitMs: AckWaitMs | None = Field(default=None, description="null: back to the default.")


class SubscriptionPatch(PushSubscriptionPatch, PullSubscriptionPatch):
    """Fields to change (absent ones keep their value); ``null`` clears an override so the room's
    value applies again, and clears ``filterPolicy`` (every payload again). ``pushUrl`` and
    ``timeoutMs`` are for PUSH, ``ackWaitMs`` for PULL."""

    model_config = examples(
        {"deliveryAttempts": 3, "jitter": None},
        {"status": "paused"},
        {"maxConcurrency": 1},
        {"filterPolicy": {"region": [{"prefix": "eu-"}]}},
        {"filterPolicy": None},
    )

    def for_type(self, subscription_type: SubscriptionType) -> PushSubscriptionPatch | PullSubscriptionPatch:
        """The same changes, checked against the fields of ``subscription_type`` (422 otherwise)."""
        model = PushSubscriptionPatch if subscription_type is SubscriptionType.PUSH else PullSubscriptionPatch
        try:
            return model.model_validate_json(self.model_dump_json(include=self.model_fields_set))
        except ValidationError as error:
            # Only the other type's fields can fail here: the first validation checked every value.
            other = sorted(str(e["loc"][0]) for e in error.errors() if e["loc"])
            problem = f"does not apply to a {subscription_type.value} subscription"
            raise InvalidRequest(
                f"{', '.join(other)} {problem}",
                details=[
                    {"field": f"body.{name}", "problem": problem, "type": "not_allowed"} for name in other
                ],
            ) from error
