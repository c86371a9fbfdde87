"""How a PUSH subscription's webhooks are shaped: its format (roomcast's body or a CloudEvent), the
CloudEvents validation handshake, and its JavaScript transformation (issue 53). The request fields
(``WebhookShaping``, part of the PUSH create and PATCH models) and what the service does with them:
a transformation is compiled and checked in a sandbox before it is stored; a handshake is made
before the subscription is stored, and again when its URL changes."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from pydantic import Field

from roomcast.api import NOT_NULL, ApiModel
from roomcast.catalog import CloudEventsMode, Subscription, WebhookFormat
from roomcast.platform import InvalidRequest, limits, now_iso
from roomcast.transformations import MAX_SOURCE_BYTES, changed_to, check_source
from roomcast.webhooks import PushUrlPolicy, validation_handshake

FormatName = Literal["standard", "cloudevents"]
ModeName = Literal["structured", "binary"]
SHAPING_FIELDS = ("transformation", "format", "cloudEventsMode", "validationHandshake")
TransformationSource = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_SOURCE_BYTES,
        description=(
            "JavaScript defining `function handler(webhook)`, run on each delivery in a V8 isolate "
            "(50 ms, 16 MiB): `webhook` has `eventType`, `payload`, `url`, `method`, `headers`; return "
            "it changed, or set `cancel: true` to skip the delivery (it ends `filtered`). At most "
            f"{MAX_SOURCE_BYTES} bytes (UTF-8). A change keeps the previous version for a rollback; "
            "null removes it (docs/transformations.md)."
        ),
        examples=[
            "function handler(webhook) { webhook.payload = {id: webhook.payload.orderId}; return webhook; }"
        ],
    ),
]


class WebhookShaping(ApiModel):
    """PUSH only (400 `push_only` on a PULL subscription)."""

    transformation: TransformationSource | None = None
    format: Annotated[FormatName | None, NOT_NULL] = Field(
        default=None,
        description="`standard` (default): roomcast's JSON body. `cloudevents`: a CloudEvents 1.0 "
        "event (docs/cloudevents.md); both signed with Standard Webhooks headers.",
    )
    cloudEventsMode: Annotated[ModeName | None, NOT_NULL] = Field(
        default=None,
        description="With `format` cloudevents: `structured` (default; the event as the body) or "
        "`binary` (the payload as the body, the attributes as `ce-*` headers).",
    )
    validationHandshake: Annotated[bool | None, NOT_NULL] = Field(
        default=None,
        description="Ask the receiver first (CloudEvents webhook validation: an OPTIONS request with "
        "`WebHook-Request-Origin`), on create and on every `pushUrl` change; it must answer 2xx with "
        "`WebHook-Allowed-Origin`, and its `WebHook-Allowed-Rate` (per minute) becomes "
        "`rateLimitPerSecond`. Default false.",
    )


def shaped(
    current: Subscription,
    given: WebhookShaping,
    changed: set[str],
    policy: PushUrlPolicy,
    origin: str,
    url_changed: bool,
) -> Subscription:
    """``current`` with the shaping fields in ``changed`` applied (create: every field given), the
    transformation checked and versioned, and the handshake made when it is due."""
    updated = current
    if "format" in changed:
        updated = replace(updated, format=WebhookFormat(given.format or WebhookFormat.STANDARD))
    if "cloudEventsMode" in changed:
        updated = replace(updated, cloud_events_mode=CloudEventsMode(given.cloudEventsMode or "structured"))
    if updated.format is WebhookFormat.CLOUDEVENTS and updated.cloud_events_mode is None:
        updated = replace(updated, cloud_events_mode=CloudEventsMode.STRUCTURED)
    if updated.format is WebhookFormat.STANDARD and updated.cloud_events_mode is not None:
        if "cloudEventsMode" in changed:
            raise InvalidRequest(
                "cloudEventsMode applies to format cloudevents only",
                details=[
                    {
                        "field": "body.cloudEventsMode",
                        "problem": "needs format cloudevents",
                        "type": "shape_mismatch",
                    }
                ],
            )
        updated = replace(updated, cloud_events_mode=None)
    if "validationHandshake" in changed:
        updated = replace(updated, validation_handshake=given.validationHandshake is True)
    if "transformation" in changed:
        unchanged = (
            current.transformation is not None and current.transformation.source == given.transformation
        )
        if given.transformation is not None and not unchanged:  # the current one was checked when kept
            check_source(given.transformation)
        kept = (current.transformation, current.previous_transformation)
        now, given_so_far = now_iso(), current.transformation_versions
        new, old, counted = changed_to(*kept, given.transformation, now, given_so_far)
        updated = replace(
            updated, transformation=new, previous_transformation=old, transformation_versions=counted
        )
    handshake_due = updated.validation_handshake and (url_changed or not current.validation_handshake)
    if handshake_due and updated.push_url is not None:
        wanted = updated.rate_limit_per_second
        consent = validation_handshake(
            updated.push_url, origin, policy, None if wanted is None else max(1, round(wanted * 60))
        )
        if consent.rate_per_second is not None:
            # The receiver's rate, or the subscription's own where that is lower.
            allowed = [
                consent.rate_per_second,
                float(limits.MAX_RATE_LIMIT_PER_SECOND),
                wanted or float("inf"),
            ]
            updated = replace(updated, rate_limit_per_second=min(allowed))
    return updated
