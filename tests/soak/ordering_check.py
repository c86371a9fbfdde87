"""The soak's check of ordering keys (docs/ordering-keys.md): for each ordered subscription and
each key, the messages' first arrivals at the subscriber (webhook requests, hand-outs) come in
publish order, and none before the previous message of its key was answered — its first 2xx
(PUSH) or the hand-out its consumer acked (PULL), when it had one. Duplicates after a worker kill
are the soak's other checks' business: only first arrivals, and ends, are ordered."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tests.soak.ledger import Ack, Destination, Handout, Publish, WebhookRequest


@dataclass
class OrderFigures:
    keys: int = 0  # (ordered subscription, key) lines checked
    messages: int = 0  # their messages that reached the subscriber
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Seen:
    first_at: float  # its first arrival at the subscriber
    answered_at: float | None  # when the arrival that ended it (2xx, acked hand-out) arrived


def _seen_push(requests: Iterable[WebhookRequest]) -> dict[tuple[str, str], _Seen]:
    by_destination: dict[tuple[str, str], list[WebhookRequest]] = defaultdict(list)
    for request in requests:
        by_destination[(request.subscription_id, request.message_id)].append(request)
    seen = {}
    for key, arrivals in by_destination.items():
        succeeded = [r.arrived_at for r in arrivals if r.succeeded]
        seen[key] = _Seen(min(r.arrived_at for r in arrivals), min(succeeded) if succeeded else None)
    return seen


def _seen_pull(handouts: Iterable[Handout], acks: Iterable[Ack]) -> dict[tuple[str, str], _Seen]:
    acked: dict[tuple[str, str], float] = {}
    for ack in acks:
        key = (ack.subscription_id, ack.message_id)
        acked[key] = min(acked.get(key, ack.handed_out_at), ack.handed_out_at)
    firsts: dict[tuple[str, str], float] = {}
    for handout in handouts:
        key = (handout.subscription_id, handout.message_id)
        firsts[key] = min(firsts.get(key, handout.at), handout.at)
    return {key: _Seen(first, acked.get(key)) for key, first in firsts.items()}


def order_figures(
    destinations: Mapping[str, Destination],
    publishes: Sequence[Publish],
    requests: Iterable[WebhookRequest],
    handouts: Iterable[Handout],
    acks: Iterable[Ack],
) -> OrderFigures:
    figures = OrderFigures()
    seen = _seen_push(requests) | _seen_pull(handouts, acks)
    lines: dict[tuple[str, str], list[Publish]] = defaultdict(list)
    for publish in publishes:
        if publish.message_id is None or publish.ordering_key is None or publish.published_at is None:
            continue
        for subscription_id in publish.destinations:
            destination = destinations.get(subscription_id)
            if destination is not None and destination.ordered:
                lines[(subscription_id, publish.ordering_key)].append(publish)
    for (subscription_id, key), line in lines.items():
        figures.keys += 1
        in_order = sorted(line, key=lambda p: (p.published_at or 0.0, p.message_id or ""))
        arrived = [
            (p, seen[(subscription_id, p.message_id or "")])
            for p in in_order
            if (subscription_id, p.message_id or "") in seen
        ]
        figures.messages += len(arrived)
        name = destinations[subscription_id].name
        for (earlier, before), (later, after) in itertools.pairwise(arrived):
            where = f"{name}, key {key}: {later.message_id} (#{later.number})"
            if after.first_at < before.first_at:
                figures.problems.append(
                    f"{where} reached the subscriber before {earlier.message_id} (#{earlier.number})"
                )
            elif before.answered_at is not None and after.first_at < before.answered_at:
                figures.problems.append(
                    f"{where} reached the subscriber {before.answered_at - after.first_at:.3f} s before "
                    f"{earlier.message_id} (#{earlier.number}) was answered"
                )
    return figures
