"""A JSON Schema as a graph for counting its cost (roomcast.event_types.cost): each subschema a
node with its own keywords' work, the subschemas it applies to the same value (``allOf``, ``$ref``,
…) and those it applies to a child (``properties``, ``items``, …), references resolved inside the
schema. Pure."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote

from roomcast.platform import limits, value_count

# Applied to the same value; each group counts its costliest member (one of ``then``/``else`` runs).
_IN_PLACE_LISTS: Final = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE: Final = ("not", "if")
# Validation keywords (a unit each, some by their size); annotations cost nothing.
_ASSERTIONS: Final = frozenset(
    {
        "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
        "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
        "$ref", "$dynamicRef",
    }
)  # fmt: skip


class UnboundedSchema(ValueError):
    """A schema whose cost cannot be bounded (a reference loop that never descends)."""


@dataclass
class Node:
    """One subschema: its own keywords' cost, what it applies to the same value (groups: each
    counts its costliest member), and what it applies to children (slots: one child gets one slot's
    subschemas; the costliest slot counts)."""

    local: int = 1
    in_place: list[list[int]] = field(default_factory=list)
    factor: int = 1  # unevaluated*: the in-place subschemas may be walked again for annotations
    slots: list[list[int]] = field(default_factory=list)


class SchemaGraph:
    def __init__(self, schema: object) -> None:
        self.nodes: list[Node] = []
        self._index: dict[int, int] = {}
        self._anchors: dict[tuple[int, str], int] = {}  # (resource root, name) → node
        self._dynamic: dict[str, list[int]] = {}  # $dynamicAnchor name → nodes
        self._roots: dict[int, Any] = {}  # node → its resource's root object
        self._pending: list[tuple[int, Any, Any]] = []
        self.root = self._node(schema, schema)
        self._collect_anchors(schema, schema)
        while self._pending:
            number, subschema, resource = self._pending.pop()
            self._link(number, subschema, resource)

    def _node(self, subschema: Any, resource: Any) -> int:
        """The node of a subschema (a dict or a boolean), made once per object."""
        if isinstance(subschema, dict) and "$id" in subschema:
            resource = subschema
        known = self._index.get(id(subschema)) if isinstance(subschema, dict) else None
        if known is not None:
            return known
        number = len(self.nodes)
        self.nodes.append(Node())
        if isinstance(subschema, dict):
            self._index[id(subschema)] = number
            self._roots[number] = resource
            self._pending.append((number, subschema, resource))
        return number

    def _collect_anchors(self, value: Any, resource: Any) -> None:
        stack = [(value, resource)]
        while stack:
            current, owner = stack.pop()
            if isinstance(current, dict):
                if "$id" in current:
                    owner = current
                for keyword in ("$anchor", "$dynamicAnchor"):
                    name = current.get(keyword)
                    if isinstance(name, str):
                        self._anchors[(id(owner), name)] = self._node(current, owner)
                name = current.get("$dynamicAnchor")
                if isinstance(name, str):
                    self._dynamic.setdefault(name, []).append(self._node(current, owner))
                stack.extend((v, owner) for v in current.values())
            elif isinstance(current, list):
                stack.extend((v, owner) for v in current)

    def _link(self, number: int, schema: Mapping[str, Any], resource: Any) -> None:
        node = self.nodes[number]
        node.local = 1 + sum(_weight(k, v) for k, v in schema.items() if k in _ASSERTIONS)
        for keyword in _IN_PLACE_LISTS:
            for member in _list(schema.get(keyword)):
                node.in_place.append([self._node(member, resource)])
        for keyword in _IN_PLACE_ONE:
            if keyword in schema:
                node.in_place.append([self._node(schema[keyword], resource)])
        branches = [self._node(schema[k], resource) for k in ("then", "else") if k in schema]
        if branches:
            node.in_place.append(branches)
        for member in _values(schema.get("dependentSchemas")):
            node.in_place.append([self._node(member, resource)])
        if isinstance(schema.get("$ref"), str):
            node.in_place.append([self._resolve(schema["$ref"], resource)])
        if isinstance(schema.get("$dynamicRef"), str):
            reference = schema["$dynamicRef"]
            targets = {self._resolve(reference, resource)}
            if reference.startswith("#") and "/" not in reference:
                targets.update(self._dynamic.get(unquote(reference[1:]), []))
            node.in_place.append(sorted(targets))
        if "unevaluatedProperties" in schema or "unevaluatedItems" in schema:
            node.factor = 2
        node.slots = self._object_slots(schema, resource) + self._array_slots(schema, resource)

    def _object_slots(self, schema: Mapping[str, Any], resource: Any) -> list[list[int]]:
        keywords = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties")
        if not any(k in schema for k in (*keywords, "propertyNames")):
            return []
        patterns = [self._node(s, resource) for s in _values(schema.get("patternProperties"))]
        shared = patterns + [
            self._node(schema[k], resource) for k in ("unevaluatedProperties", "propertyNames") if k in schema
        ]
        named = [[self._node(s, resource), *shared] for s in _values(schema.get("properties"))]
        extra = schema.get("additionalProperties")
        other = [self._node(extra, resource)] if "additionalProperties" in schema else []
        # Matching a key against each pattern costs too: a unit per pattern, as a leaf node.
        pattern_work = [self._leaf(len(patterns))] if patterns else []
        return [slot + pattern_work for slot in [*named, other + shared]]

    def _array_slots(self, schema: Mapping[str, Any], resource: Any) -> list[list[int]]:
        keywords = ("prefixItems", "items", "contains", "unevaluatedItems")
        if not any(k in schema for k in keywords):
            return []
        shared = [self._node(schema[k], resource) for k in ("contains", "unevaluatedItems") if k in schema]
        if schema.get("uniqueItems") is True:
            shared.append(self._leaf(1))
        prefix = [[self._node(s, resource), *shared] for s in _list(schema.get("prefixItems"))]
        rest = [self._node(schema["items"], resource)] if "items" in schema else []
        return [*prefix, rest + shared]

    def _leaf(self, cost: int) -> int:
        self.nodes.append(Node(local=cost))
        return len(self.nodes) - 1

    def _resolve(self, reference: str, resource: Any) -> int:
        """The node a fragment reference names in its resource (``#``, ``#/a/b``, ``#name``)."""
        fragment = unquote(reference.partition("#")[2])
        if not fragment.startswith("/") and fragment:
            found = self._anchors.get((id(resource), fragment))
            if found is None:
                raise UnboundedSchema(f"$ref {reference!r} names no anchor of the schema")
            return found
        target: Any = resource
        for part in fragment.split("/")[1:]:
            step = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and step in target:
                target = target[step]
            elif isinstance(target, list) and step.isdigit() and int(step) < len(target):
                target = target[int(step)]
            else:
                raise UnboundedSchema(f"$ref {reference!r} points at nothing in the schema")
        if not isinstance(target, (dict, bool)):
            raise UnboundedSchema(f"$ref {reference!r} points at something that is not a schema")
        return self._node(target, self._roots.get(self._index.get(id(target), -1), resource))

    def bottom_up(self) -> list[int]:
        """The nodes, each after everything it applies in place (UnboundedSchema on a loop)."""
        order: list[int] = []
        state = [0] * len(self.nodes)  # 0 new, 1 on the path, 2 done
        for start in range(len(self.nodes)):
            if state[start]:
                continue
            stack: list[tuple[int, Iterator[int]]] = [(start, self._in_place_of(start))]
            state[start] = 1
            while stack:
                number, children = stack[-1]
                child = next(children, None)
                if child is None:
                    stack.pop()
                    state[number] = 2
                    order.append(number)
                elif state[child] == 1:
                    raise UnboundedSchema("a $ref loop applies a schema to the same value without end")
                elif state[child] == 0:
                    state[child] = 1
                    stack.append((child, self._in_place_of(child)))
        return order

    def _in_place_of(self, number: int) -> Iterator[int]:
        return (member for group in self.nodes[number].in_place for member in group)


def _weight(keyword: str, value: object) -> int:
    """A keyword's work on one value, in units of ~20 ns (measured on jsonschema-rs: comparing a
    number with a non-integral bound ~1 µs, two objects ~150 ns a member; hashed enums ~10 ns)."""
    if keyword in _NUMERIC_BOUNDS:
        return _FRACTION if _fractional(value) else 2
    if keyword == "const":
        return _value_weight(value)
    if keyword == "enum" and isinstance(value, list):
        if all(isinstance(v, str) for v in value) or all(type(v) is int for v in value):
            return 2  # looked up in a hash set
        return max(1, sum(_value_weight(v) for v in value))
    if keyword == "required" and isinstance(value, list):
        return max(1, len(value))
    if keyword == "dependentRequired" and isinstance(value, dict):
        return max(1, sum(len(v) for v in value.values() if isinstance(v, list)))
    return 1


_NUMERIC_BOUNDS: Final = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)
_FRACTION: Final = 75  # a number against a non-integral number: ~1.5 µs at worst


def _fractional(value: object) -> bool:
    return isinstance(value, float) and not value.is_integer()


def _value_weight(value: object) -> int:
    """Comparing a payload value with ``value`` (an enum member, a const)."""
    if isinstance(value, (dict, list)):
        return 10 * value_count(value, limits.MAX_SCHEMA_BYTES)
    return _FRACTION if isinstance(value, float) else 1


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _values(value: object) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else []
