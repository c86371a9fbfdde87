"""What checking a payload against a JSON Schema (2020-12) can cost, known before any payload is
seen (docs/decisions/0043-bounded-rule-work.md).

A validator applies subschemas to values: ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/
``else``, ``dependentSchemas`` and ``$ref`` to the same value, ``properties``, ``items`` and the
like to its children. The cost of a schema is, over every payload value at every depth, the most
keyword evaluations one value can get — counted without short-cuts, as when every error is
collected. A schema whose two ``anyOf`` branches both recurse costs twice as much at each level
down: 2^depth; one whose references only descend costs the same at every depth.

``cost_per_value`` walks the schema once per payload depth (up to ``MAX_PAYLOAD_DEPTH``, past what
a payload can nest), so a cost that grows with depth is seen at the depth where it passes the
limit; a payload then costs the sum of its values' costs at their depths (``SchemaCost.of_payload``).
Pure: the schema is a parsed JSON object whose references are fragments (``#/…``, ``#name``), which
``roomcast.event_types.model`` requires before it asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from roomcast.event_types.graph import Node, SchemaGraph, UnboundedSchema

__all__ = ["MAX_PAYLOAD_DEPTH", "SchemaCost", "UnboundedSchema", "cost_per_value"]

# Deeper than any payload the API takes (pydantic refuses a payload nested past 254 levels).
MAX_PAYLOAD_DEPTH: Final = 256
# Subschemas visited while counting (applying subschemas × payload depths): far above any schema
# written by hand, and what keeps the counting itself (at every save, and once per container and
# schema at publish) within ~60 ms.
MAX_COUNTING_STEPS: Final = 20_000


@dataclass(frozen=True)
class SchemaCost:
    """A schema's cost for one payload value at each depth (``per_depth[0]``: the payload itself);
    past the list, the last depth's cost ``repeats`` (recursion that costs the same at each level)
    or nothing applies (0)."""

    per_depth: tuple[int, ...]
    repeats: bool = False

    @property
    def worst(self) -> int:
        return max(self.per_depth)

    @property
    def worst_depth(self) -> int:
        return self.per_depth.index(self.worst)

    def at(self, depth: int) -> int:
        if depth < len(self.per_depth):
            return self.per_depth[depth]
        return self.per_depth[-1] if self.repeats else 0

    def of_payload(self, payload: object, most: int) -> int:
        """What checking ``payload`` costs: each of its values (itself, each member and item, all
        the way down) at its depth's cost; counted no further than past ``most``. A container's
        members are counted at once and only containers are walked into (scalars are most values)."""
        reach = len(self.per_depth) - 1  # past it every level costs the last one's, or nothing
        total, stack = self.at(0), [(payload, 0)]
        while stack and total <= most:
            value, depth = stack.pop()
            if depth >= reach and not self.repeats:
                continue  # nothing applies below: its values cost nothing, and are not walked
            members = value.values() if isinstance(value, dict) else value
            if isinstance(members, (list, type({}.values()))):
                total += len(members) * self.at(depth + 1)
                stack.extend((m, depth + 1) for m in members if isinstance(m, (dict, list)))
        return total


def cost_per_value(schema: object, limit: int) -> SchemaCost:
    """The schema's cost per payload value at each depth up to ``MAX_PAYLOAD_DEPTH``; the counting
    stops at the first depth where it passes ``limit``. Raises UnboundedSchema for a loop of
    references that never descends, or a schema too large to count (more than
    ``MAX_COUNTING_STEPS`` subschema visits)."""
    graph = SchemaGraph(schema)
    nodes = graph.nodes
    # Below the top level only subschemas that apply others cost anything: the others are skipped.
    order = [(n, nodes[n]) for n in graph.bottom_up()]
    deep = [(n, node) for n, node in order if node.slots or node.in_place]
    here = [0] * len(nodes)
    for number, node in order:
        here[number] = min(node.local + node.factor * _in_place(node, here), limit + 1)
    per_depth = [here[graph.root]]
    steps = len(order)
    for depth in range(1, MAX_PAYLOAD_DEPTH + 1):
        if per_depth[-1] > limit or not any(here):
            break  # past the limit, or nothing applies this deep
        below, here = here, [0] * len(nodes)
        for number, node in deep:
            own = max((sum(below[m] for m in slot) for slot in node.slots), default=0)
            here[number] = min(own + node.factor * _in_place(node, here), limit + 1)
        if here == below:
            return SchemaCost(tuple(per_depth), repeats=True)  # every level costs the same from here on
        per_depth.append(here[graph.root])
        steps += len(deep)
        if steps > MAX_COUNTING_STEPS:
            raise UnboundedSchema(
                f"is too large to count its cost: {len(deep)} subschemas that apply others, nested"
                f" {depth} levels deep or more (at most {MAX_COUNTING_STEPS} of the two multiplied)"
            )
    while len(per_depth) > 1 and per_depth[-1] == 0:
        per_depth.pop()  # nothing applies that deep: such values are not even walked
    return SchemaCost(tuple(per_depth), repeats=per_depth[-1] > 0 and len(per_depth) > MAX_PAYLOAD_DEPTH)


def _in_place(node: Node, here: list[int]) -> int:
    return sum(max(here[m] for m in group) for group in node.in_place)
