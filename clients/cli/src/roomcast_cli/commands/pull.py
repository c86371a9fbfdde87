"""`roomcast pull`, `ack`, `nack` and `extend` on a PULL subscription."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated

import typer

from roomcast_cli import render
from roomcast_cli.common import JsonFlag, RoomId, SubscriptionId, dump
from roomcast_cli.inputs import read_receipts
from roomcast_cli.session import session_of

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
    session.output.result(
        result, lambda data: [*render.pulled_messages(data), *render.receipts_result(data.get("ack") or {})]
    )


def _given(receipts: list[str] | None) -> list[str]:
    """The receipts named on the command line, else one per line of stdin."""
    return read_receipts(receipts or [], sys.stdin)


def _receipts_command(summary: str, call: str) -> Callable[..., None]:
    """ack or nack: the receipts (or stdin's) handed to the client's method of that name."""

    def command(
        context: typer.Context,
        room_id: RoomId,
        subscription_id: SubscriptionId,
        receipts: Receipts = None,
        json_output: JsonFlag = False,
    ) -> None:
        session = session_of(context, json_output)
        answer = getattr(session.client, call)(room_id, subscription_id, _given(receipts))
        session.output.result(dump(answer), render.receipts_result)

    command.__doc__ = summary
    return command


ack = _receipts_command("Acknowledge pulled messages: they are done.", "ack")
nack = _receipts_command(
    "Give pulled messages back: each comes back after its backoff (or ends dead).", "nack"
)


def extend(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    ack_wait_ms: Annotated[int, typer.Option(help="Hide the messages this much longer (ms).")],
    receipts: Receipts = None,
    json_output: JsonFlag = False,
) -> None:
    """Extend pulled messages' ack wait."""
    session = session_of(context, json_output)
    result = dump(session.client.extend(room_id, subscription_id, _given(receipts), ack_wait_ms=ack_wait_ms))
    session.output.result(result, render.receipts_result)
