"""Schemathesis checks of our own, loaded by the conformance run (SCHEMATHESIS_HOOKS).

The run lets a schema-valid request be refused with 400 or 422 (``positive_data_acceptance``
accepts them, tests/e2e/schemathesis.toml) because some rules are not expressible in JSON Schema:
a cursor this list did not hand out, a destination or failover that is not a subscription of the
room, a push URL that does not resolve to a public address, event-type names repeated, a replay
window that ends before it starts, a PATCH field of the other subscription type, a filter policy
too complex or too large, or with an empty numeric range (its shape is in the schema). This check
makes sure such a refusal is one of those and never a plain schema mismatch (``validation_error``
of a kind JSON Schema could have said), so the documented schema stays exactly the enforced one.
What the document can say, it says, and is not allowed here: a PUSH-only field on a PULL create
(the create body is a union discriminated by ``type``) and ``messageIds`` beside ``since``/``until``
on a replay (the replay schema's ``not``).

``an_archived_event_type_is_not_found_until_restored`` is the built-in use-after-free check (ST301)
for event types, which it cannot judge there: their DELETE archives, and ``POST …/restore`` or a
PATCH of ``archived: false`` bring one back, which ST301 does not count as re-creating it (their
path is not a prefix of the DELETE's). ST301 is off for those reads (tests/e2e/schemathesis.toml).
"""

from __future__ import annotations

from typing import Any

import schemathesis

# Error codes and detail types of refusals that no JSON Schema can express.
SEMANTIC_REFUSALS = frozenset(
    {
        "invalid_cursor",
        "unroutable",
        "invalid_failover",
        "invalid_push_url",
        "duplicate_event_types",
        "idempotency_key_reused",
        "invalid_receipt",
        "invalid_operations_room",  # a room named as its own operations room
        "empty_window",  # a replay window whose since is after its until
        "invalid_text",  # a lone UTF-16 surrogate in a string or key (JSON allows it)
        "filter_policy_too_complex",  # over 150 combinations of values (SNS's count)
        "filter_policy_too_large",  # over 256 KiB of JSON
        "filter_policy_empty_range",  # a numeric range whose lower bound is not below its upper
        "invalid_schema",  # an event type's JSON Schema that the 2020-12 meta-schema refuses
        "schema_violation",  # a payload that breaks its event type's schema (validation: reject)
        "undeclared_event_type",  # an event type not in the catalog, in a room that refuses those
        "deliver_at_out_of_range",  # a deliverAt more than a minute ago or a year ahead: relative to now
        "not_scheduled",  # cancelling a message that is not (or no longer) scheduled
        "invalid_window",  # a metrics window of more points than an answer holds: its default end is now
        "scope_mismatch",  # an alert rule's subscriptionId without its roomId, or a state without either
        "invalid_email",  # an address SNS's e-mail protocol refuses (its own rules)
        "room_not_found",  # a key's or a portal session's rooms name a room the tenant does not have
        "unknown_event_type",  # a test event of an event type the tenant's catalog does not have
        "invalid_transformation",  # JavaScript that does not compile, loops, or defines no handler
        "handshake_refused",  # a receiver that did not consent to the validation handshake
        "invalid_destination",  # an ARN of another service or partition, a standard queue for ordering
        "shape_mismatch",  # cloudEventsMode without format cloudevents; a webhook's format for a destination
        "destination_refused",  # an AWS destination whose role or target refused the test message
    }
)
# Refusals that depend on the stored subscription's type, so only a PATCH can meet them.
PATCH_REFUSALS = frozenset(
    {
        "not_allowed",  # a PATCH field of the other subscription type (PUSH/PULL)
        "push_only",  # flow control or auto-disable given to a PULL subscription
    }
)


@schemathesis.check
def refusals_of_valid_data_are_semantic(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code not in (400, 422):
        return None
    error = response.json()["error"]
    kinds = {error["code"], *(detail["type"] for detail in error["details"])}
    allowed = SEMANTIC_REFUSALS | (PATCH_REFUSALS if case.method.upper() == "PATCH" else frozenset())
    if not kinds & allowed:
        raise AssertionError(
            f"a schema-valid request was refused ({response.status_code} {error['code']}: "
            f"{error['message']}); the documented schema is looser than what the API enforces"
        )
    return None


EVENT_TYPE_PATH = "/event-types/{name}"


def _restores(case: Any) -> bool:
    """A request that brings an archived event type back (when it answers 2xx)."""
    if case.method.upper() == "POST":
        return bool(case.operation.path == f"{EVENT_TYPE_PATH}/restore")
    body = case.body
    return case.method.upper() == "PATCH" and isinstance(body, dict) and body.get("archived") is False


@schemathesis.check
def an_archived_event_type_is_not_found_until_restored(ctx: Any, response: Any, case: Any) -> bool | None:
    """A GET or PATCH of an event type that this scenario archived (DELETE) and did not restore
    answers 404: its archive took it out of the catalog."""
    reads = case.operation.path == EVENT_TYPE_PATH and case.method.upper() in ("GET", "PATCH")
    if not reads or not 200 <= response.status_code < 300 or _restores(case):
        return None
    internals = getattr(ctx, "internals", None)
    if internals is None:
        return None
    name = (case.path_parameters or {}).get("name")
    archived = False
    for earlier in internals.find_all_cases():  # in the order they were sent
        if earlier.id == case.id:
            break
        answer = internals.find_response(case_id=earlier.id)
        named = (earlier.path_parameters or {}).get("name") == name
        same = named and earlier.auth_identity == case.auth_identity  # one tenant's event type
        if answer is None or not 200 <= answer.status_code < 300 or not same:
            continue
        if earlier.method.upper() == "DELETE" and earlier.operation.path == EVENT_TYPE_PATH:
            archived = True
        elif _restores(earlier):
            archived = False
    if archived:
        raise AssertionError(
            f"event type {name!r} was archived (DELETE) and not restored, yet {case.method.upper()} "
            f"answered {response.status_code}"
        )
    return None
