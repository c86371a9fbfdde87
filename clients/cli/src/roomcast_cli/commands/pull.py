"""`roomcast pull`, `ack`, `nack` and `extend` on a PULL subscription."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli.common import JsonFlag, RoomId, SubscriptionId, dump, subscription_command
from roomcast_cli.inputs import read_receipts
from roomcast_cli.session import Session, session_of

Receipts = Annotated[
    list[str] | None,
    typer.Argument(
        help="Receipts from pull; - (or a pipe) reads them one per line from stdin.", show_default=False
    ),
]


def pull(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    max_messages: Annotated[
        int, typer.Option("--max", min=1, max=10, help="At most this many messages.")
    ] = 10,
    wait: Annotated[
        int, typer.Option("--wait", min=0, max=20, help="Long polling: wait up to this many seconds.")
    ] = 0,
    ack: Annotated[bool, typer.Option("--ack", help="Acknowledge what was pulled at once.")] = False,
    json_output: JsonFlag = False,
) -> None:
    """Pull messages from a PULL subscription (each with a receipt for ack, nack, extend)."""
    session = session_of(context, json_output)
    with session.output.waiting(f"pulling (waiting up to {wait} s)…"):
        messages = dump(
            session.client.pull(room_id, subscription_id, max_messages=max_messages, wait_ms=wait * 1000)
        )
    result = {"messages": messages}
    if ack and messages:
        result["ack"] = dump(session.client.ack(room_id, subscription_id, [m["receipt"] for m in messages]))
    # Nothing pulled: the subscription may say why (ordered, disabled). One more request, only then,
    # and only for people: --json prints the API's answer as it is.
    subscription = None if messages or session.json_mode else _subscription(session, room_id, subscription_id)
    session.output.result(
        result,
        lambda data: [
            *render.pulled_messages(data, subscription),
            *render.receipts_result(data.get("ack") or {}),
        ],
    )


def _subscription(session: Session, room_id: str, subscription_id: str) -> dict[str, Any] | None:
    """The subscription, for a hint; None when it cannot be read (the pull's answer stands alone)."""
    from roomcast_client import RoomcastError

    try:
        subscription: dict[str, Any] = dump(session.client.subscriptions.get(room_id, subscription_id))
    except RoomcastError:
        return None
    return subscription


def _given(receipts: list[str] | None) -> list[str]:
    """The receipts named on the command line, else one per line of stdin."""
    return read_receipts(receipts or [], sys.stdin)


def _receipts_options(receipts: Receipts = None) -> None:
    """The receipts ack and nack take."""


def _extend_options(
    ack_wait_ms: Annotated[int, typer.Option(help="Hide the messages this much longer (ms).")],
    receipts: Receipts = None,
) -> None:
    """What extend takes: how much longer, and the receipts."""


ack = subscription_command(
    "Acknowledge pulled messages: they are done.",
    render.receipts_result,
    lambda client, room, sub, receipts: client.ack(room, sub, _given(receipts)),
    _receipts_options,
)
nack = subscription_command(
    "Give pulled messages back: each comes back after its backoff (or ends dead).",
    render.receipts_result,
    lambda client, room, sub, receipts: client.nack(room, sub, _given(receipts)),
    _receipts_options,
)
extend = subscription_command(
    "Extend pulled messages' ack wait.",
    render.receipts_result,
    lambda client, room, sub, ack_wait_ms, receipts: client.extend(
        room, sub, _given(receipts), ack_wait_ms=ack_wait_ms
    ),
    _extend_options,
)
