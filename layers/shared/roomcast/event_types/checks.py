"""Checking a payload against a saved schema (roomcast.event_types.model) within its budget
(docs/decisions/0043-bounded-rule-work.md): the schema compiled once, on the linear-time regex
engine, fetching nothing; its cost counted; the verdict by the fast path; the errors while that
stays cheap."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from roomcast.event_types.cost import SchemaCost, UnboundedSchema, cost_per_value
from roomcast.platform import JsonValue, limits, value_count

if TYPE_CHECKING:
    import jsonschema_rs

_MESSAGE_CHARS: Final = 300


class InvalidSchema(ValueError):
    """A schema that cannot be saved: ``version`` says which, ``problem`` why."""

    def __init__(self, version: str, problem: str) -> None:
        super().__init__(f"schemas.{version}: {problem}")
        self.version = version
        self.problem = problem


@dataclass(frozen=True)
class SchemaProblem:
    """Where a payload breaks its schema (``payload.items[2].price``) and how."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def schema_cost(version: str, schema: dict[str, Any]) -> SchemaCost:
    """A schema's cost per payload value; InvalidSchema when it cannot be bounded or is past
    MAX_SCHEMA_COST_PER_VALUE."""
    try:
        cost = cost_per_value(schema, limits.MAX_SCHEMA_COST_PER_VALUE)
    except UnboundedSchema as error:
        raise InvalidSchema(version, f"is too costly to check: {error}") from None
    if cost.worst > limits.MAX_SCHEMA_COST_PER_VALUE:
        raise InvalidSchema(
            version,
            f"is too costly to check: a payload value {cost.worst_depth} levels deep would cost more than"
            f" {limits.MAX_SCHEMA_COST_PER_VALUE} evaluations (its combinators or references multiply"
            " the work at each level: see docs/event-types.md#what-a-schema-may-cost)",
        )
    return cost


class CompiledSchema:
    """A schema ready to check payloads: its validator, its cost per payload value, and whether it
    has combinators whose first error carries every branch's errors (``anyOf``, ``oneOf``).
    ``quiet``: the same schema whose errors do not quote the value (quoting a large one costs as
    much as serialising it), made the first time a large payload needs its first error."""

    def __init__(self, schema: Any, validator: jsonschema_rs.Validator, cost: SchemaCost, text: str) -> None:
        self._schema = schema
        self.validator = validator
        self.cost = cost
        self.collects_branches = '"anyOf"' in text or '"oneOf"' in text

    @cached_property
    def quiet(self) -> jsonschema_rs.Validator:
        return _validator(self._schema, mask="the value")


def compile_schema(text: str, version: str = "?", cost: SchemaCost | None = None) -> CompiledSchema:
    """A stored schema, compiled, and its cost counted (once per container and schema: the counting
    is bounded, MAX_COUNTING_STEPS). Nothing is fetched: a reference it cannot resolve in itself
    fails (the retriever refuses every address); patterns run on the linear-time engine."""
    import jsonschema_rs

    schema = json.loads(text)
    try:
        validator = _validator(schema)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InvalidSchema(version, f"cannot be compiled: {first_line}") from None
    return CompiledSchema(schema, validator, cost or schema_cost(version, schema), text)


def _validator(schema: Any, mask: str | None = None) -> jsonschema_rs.Validator:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(
        schema, retriever=_no_retrieval, pattern_options=jsonschema_rs.RegexOptions(), mask=mask
    )


def _no_retrieval(uri: str) -> Any:
    raise ValueError(f"{uri} is outside the schema; roomcast fetches nothing")


@dataclass(frozen=True)
class SchemaCheck:
    """A payload checked against a schema: ``valid``; ``problems`` (at most MAX_SCHEMA_ERRORS);
    ``cut_short`` when they may not be all of them (collecting them all would cost too much);
    ``cost`` in units (past SCHEMA_CHECK_BUDGET: ``checked`` False, the check was not made)."""

    valid: bool
    problems: tuple[SchemaProblem, ...] = ()
    cut_short: bool = False
    checked: bool = True
    cost: int = 0


# A payload of MAX_PAYLOAD_BYTES holds at most this many values (``[0,0,…]``: two bytes each).
_MOST_PAYLOAD_VALUES: Final = limits.MAX_PAYLOAD_BYTES // 2 + 1


def check_payload(
    schema: CompiledSchema,
    payload: JsonValue,
    budget: int = limits.SCHEMA_CHECK_BUDGET,
    *,
    counted: bool = False,
) -> SchemaCheck:
    """``payload`` against ``schema`` within ``budget`` (at most SCHEMA_CHECK_BUDGET): the verdict
    by the fast path; then every error while the payload is small (SCHEMA_DETAILS_VALUES,
    SCHEMA_DETAILS_BUDGET: each error quotes its value), else the first one without its value, or
    none. The cost is counted when a payload of the largest size could pass the budget, or when
    ``counted`` (a batch adds its messages' costs up); else it is 0 in the answer."""
    cost = None
    if counted or schema.cost.worst * _MOST_PAYLOAD_VALUES > budget:
        cost = schema.cost.of_payload(payload, budget)
        if cost > budget:
            return SchemaCheck(valid=False, checked=False, cost=cost)
    if schema.validator.is_valid(payload):
        return SchemaCheck(valid=True, cost=cost or 0)
    if cost is None:
        cost = schema.cost.of_payload(payload, limits.SCHEMA_DETAILS_BUDGET)
    small = value_count(payload, limits.SCHEMA_DETAILS_VALUES) <= limits.SCHEMA_DETAILS_VALUES
    if small and cost <= limits.SCHEMA_DETAILS_BUDGET:  # every error, each quoting its value
        return SchemaCheck(valid=False, problems=tuple(_problems(schema, payload)), cost=cost)
    if schema.collects_branches:
        return SchemaCheck(valid=False, cut_short=True, cost=cost)
    return SchemaCheck(
        valid=False, problems=tuple(_first_problem(schema, payload)), cut_short=True, cost=cost
    )


def _problems(schema: CompiledSchema, payload: JsonValue) -> list[SchemaProblem]:
    found: list[SchemaProblem] = []
    for error in schema.validator.iter_errors(payload):
        found.append(SchemaProblem(_path(error.instance_path), _short(error.message)))
        if len(found) == limits.MAX_SCHEMA_ERRORS:
            break
    return found


def _first_problem(schema: CompiledSchema, payload: JsonValue) -> list[SchemaProblem]:
    import jsonschema_rs

    try:
        schema.quiet.validate(payload)
    except jsonschema_rs.ValidationError as error:
        return [SchemaProblem(_path(error.instance_path), _short(error.message))]
    return []


def _short(message: str) -> str:
    """An error's message, cut where it quotes a long value (a refusal lists up to 20 of them)."""
    return message if len(message) <= _MESSAGE_CHARS else message[: _MESSAGE_CHARS - 1] + "…"


def _path(parts: list[str | int]) -> str:
    path = "payload"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path
