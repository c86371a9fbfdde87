"""The API's enumerations, read from its OpenAPI document and written for the clients: a Python
module of tuples and ``StrEnum``s (the SDK's ``_generated/enums.py``, the CLI's ``_enums.py``) and
an ES module of frozen arrays (the console's ``enums.js``). ``roomcast_dev.sdk_models`` writes
them (docs/decisions/0044-generated-sdk-models.md).

Every enumeration of the document has a name here (``ENUMERATIONS``): one the document gains, or
one whose values differ from place to place, stops the generation until it is named.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SCHEMAS = "/components/schemas"


@dataclass(frozen=True)
class Enumeration:
    """One of the API's enumerations: its names in the clients and where the document has it (a
    JSON pointer; every other place with the same values is the same enumeration). ``open``: the
    API adds values to it as it grows, so the SDK's models read it as a string (an older SDK must
    not fail on a status it does not know) and only the lists name its values."""

    class_name: str
    constant: str
    pointer: str
    open: bool = False
    label: str = ""  # its place, as people read it, where the pointer does not say it shortly

    @property
    def where(self) -> str:
        """Its place, as people read it: ``DeliveryView.status``."""
        return self.label or self.pointer.removeprefix(f"{SCHEMAS}/").replace("/properties/", ".")


def _at(schema: str, field: str) -> str:
    return f"{SCHEMAS}/{schema}/properties/{field}"


ENUMERATIONS = (
    Enumeration("DeliveryStatus", "DELIVERY_STATUSES", _at("DeliveryView", "status"), open=True),
    Enumeration("AttemptEvent", "ATTEMPT_EVENTS", _at("AttemptView", "event"), open=True),
    Enumeration("JobKind", "JOB_KINDS", _at("JobView", "kind"), open=True),
    Enumeration("JobState", "JOB_STATES", _at("JobView", "state")),
    Enumeration("SubscriptionType", "SUBSCRIPTION_TYPES", _at("SubscriptionResponse", "type")),
    Enumeration("SubscriptionStatus", "SUBSCRIPTION_STATUSES", _at("SubscriptionResponse", "status")),
    Enumeration("OnDeadKey", "ON_DEAD_KEY_CHOICES", _at("SubscriptionResponse", "onDeadKey")),
    Enumeration("WebhookFormat", "WEBHOOK_FORMATS", _at("PushSubscriptionCreate", "format")),
    Enumeration(
        "TransformationOutcome", "TRANSFORMATION_OUTCOMES", _at("TransformationTestResult", "outcome")
    ),
    Enumeration("DestinationKind", "DESTINATION_KINDS", _at("DestinationBody", "kind")),
    Enumeration("CloudEventsMode", "CLOUD_EVENTS_MODES", _at("PushSubscriptionCreate", "cloudEventsMode")),
    Enumeration("OrderingKeyStatus", "ORDERING_KEY_STATUSES", _at("OrderingKeyView", "status")),
    Enumeration("NackOutcomeKind", "NACK_OUTCOMES", _at("NackOutcome", "outcome")),
    Enumeration(
        "UndeclaredEventTypes", "UNDECLARED_EVENT_TYPES_CHOICES", _at("RoomResponse", "undeclaredEventTypes")
    ),
    Enumeration("EventTypeValidation", "VALIDATION_MODES", _at("EventTypeView", "validation")),
    Enumeration("MetricsResolution", "METRICS_RESOLUTIONS", _at("MetricsResponse", "resolution")),
    Enumeration("AlertState", "ALERT_STATES", _at("AlertRuleView", "state")),
    Enumeration("AlertChange", "ALERT_CHANGES", _at("AlertEventView", "state")),
    Enumeration(
        "WatchedSubscriptionState",
        "WATCHED_SUBSCRIPTION_STATES",
        f"{_at('StateCondition', 'in')}/items",
        label="an alert rule's condition.in",
    ),
    Enumeration(
        "ApiKeyScope", "API_KEY_SCOPES", f"{_at('ApiKeyCreate', 'scopes')}/items", label="an API key's scopes"
    ),
    Enumeration(
        "DeliveryControl",
        "DELIVERY_CONTROLS",
        "/webhooks/message/post/responses/2XX/headers/webhook-delivery/schema",
        label="the webhook-delivery header of a webhook's answer",
    ),
)
# Enumerations of requests only, which no client lists: a filter policy's numeric operators.
UNLISTED_ENUMS = (f"{SCHEMAS}/NumericCondition/",)


class StaleDocumentError(ValueError):
    """The document lacks what the generation names (a schema, an enumeration's place), or has an
    enumeration no client has a name for."""


def at_pointer(document: dict[str, Any], pointer: str) -> Any:
    """What the document holds at a JSON pointer (``/components/schemas/...``)."""
    node: Any = document
    for escaped in pointer.removeprefix("/").split("/"):
        part = escaped.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise StaleDocumentError(f"openapi.json has nothing at {pointer}")
        node = node[part]
    return node


def _enum_places(node: Any, pointer: str = "") -> Iterator[tuple[str, list[Any]]]:
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield pointer, node["enum"]
        for key, value in node.items():
            yield from _enum_places(value, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _enum_places(value, f"{pointer}/{index}")


def enumerations(document: dict[str, Any]) -> list[tuple[Enumeration, list[str]]]:
    """Each enumeration with its values, in the document's order."""
    found = [(e, at_pointer(document, e.pointer).get("enum")) for e in ENUMERATIONS]
    for enumeration, values in found:
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise StaleDocumentError(f"openapi.json has no enumeration of strings at {enumeration.pointer}")
    known = [values for _, values in found]
    for pointer, values in _enum_places(document):
        if values not in known and not pointer.startswith(UNLISTED_ENUMS):
            raise StaleDocumentError(
                f"openapi.json has an enumeration no client names at {pointer}: {values} "
                "(name it in roomcast_dev.contract_enums.ENUMERATIONS)"
            )
    return found


def generated_notice(comment: str = "#") -> str:
    """The first lines of every generated file: where it comes from, and not to edit it."""
    return (
        f"{comment} Generated from functions/docs/api_docs/openapi.json by `make sdk-models`\n"
        f"{comment} (python -m roomcast_dev.sdk_models): do not edit. `make template-inputs` and\n"
        f"{comment} tests/unit/test_generated_clients.py fail while it is stale.\n"
    )


def _member(value: str) -> str:
    name = "".join(c if c.isalnum() else "_" for c in value).upper()
    return name if name.isidentifier() else f"V_{name}"


def python_enums(document: dict[str, Any], owner: str) -> str:
    """The enumerations as a Python module (before formatting): for each, a tuple of its values
    and a StrEnum of them. ``owner``: who lists and takes them (``the CLI``)."""
    lines = [
        generated_notice(),
        f'"""The roomcast API\'s enumerations, as {owner} lists and takes them: a tuple of each one\'s',
        "values in the API's order, and a StrEnum of them (docs/decisions/0044-generated-sdk-models.md).",
        '"""',
        "",
        "from enum import StrEnum",
        "from typing import Final",
    ]
    for enumeration, values in enumerations(document):
        lines += [
            "",
            "",
            f"{enumeration.constant}: Final = {tuple(values)!r}",
            "",
            "",
            f"class {enumeration.class_name}(StrEnum):",
            f'    """The values of {enumeration.where} in openapi.json."""',
            "",
            *(f"    {_member(value)} = {value!r}" for value in values),
        ]
    return "\n".join(lines) + "\n"


def javascript_enums(document: dict[str, Any]) -> str:
    """The enumerations as the console's ES module: a frozen array of each one's values."""
    lines = [
        generated_notice("//"),
        "// The roomcast API's enumerations, each a frozen array of its values in the API's order",
        "// (docs/decisions/0044-generated-sdk-models.md).",
    ]
    for enumeration, values in enumerations(document):
        lines += [
            "",
            f"// {enumeration.where}",
            f"export const {enumeration.constant} = Object.freeze({json.dumps(values)});",
        ]
    return "\n".join(lines) + "\n"
