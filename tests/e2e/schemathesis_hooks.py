"""A schemathesis check of our own, loaded by the conformance run (SCHEMATHESIS_HOOKS).

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
