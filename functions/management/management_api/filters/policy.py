"""A filter policy as the API takes it: checked by SNS's rules, or refused with 400
``invalid_filter_policy`` naming the rule broken and where (before anything changes)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from roomcast.filters import FilterPolicy, InvalidFilterPolicy
from roomcast.platform import InvalidRequest


def checked_policy(given: Mapping[str, JsonValue] | None) -> FilterPolicy | None:
    """The policy of a request's ``filterPolicy`` (None when it is null or absent)."""
    if given is None:
        return None
    try:
        return FilterPolicy.of(dict(given))
    except InvalidFilterPolicy as error:
        raise InvalidRequest(
            str(error),
            code="invalid_filter_policy",
            http_status=400,
            details=[
                {
                    "field": f"body.filterPolicy{error.path}",
                    "problem": error.rule,
                    "type": error.kind,
                }
            ],
        ) from error
