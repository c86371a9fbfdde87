"""Messages and what became of them: publish answers, a room's messages, a subscription's
deliveries and dead letters, replays, pulled messages with their receipts, ack/nack/extend
answers, and `listen`'s line per received webhook."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import add_row, details, new_table, page_table
from roomcast_cli.render.catalog import schema_error_lines
from roomcast_cli.render.filters import filtered_out_lines
from roomcast_cli.render.text import Json, compact_json, deliveries_summary, event_text, excerpt, show_time


def _due(message: Json) -> str:
    """When a scheduled message is due: its ``deliverAt``, in UTC."""
    return f"{show_time(message['deliverAt'])} UTC"


def publish_result(result: Json) -> list[RenderableType]:
    destinations = result.get("destinations") or []
    if result.get("deliverAt"):  # stored now, delivered at its time (or cancelled before)
        headline = (
            f"scheduled {result['messageId']} for {len(destinations)} destination(s), due {_due(result)}"
        )
    else:
        headline = f"published {result['messageId']} to {len(destinations)} destination(s)"
    return [
        Text(headline),
        details(result, hide=("filteredOut", "schemaErrors")),
        *filtered_out_lines(result.get("filteredOut")),
        *schema_error_lines(result.get("schemaErrors")),
    ]


def cancelled_message(message: Json) -> list[RenderableType]:
    deliveries = message.get("deliveries") or []
    return [
        Text(
            f"cancelled {message['messageId']} (was due {show_time(message.get('deliverAt'))}): "
            f"{len(deliveries)} delivery(ies) will never be sent"
        ),
        details(message, hide=("payload", "deliveries", "filteredOut", "schemaErrors")),
    ]


def publish_batch_result(result: Json) -> list[RenderableType]:
    table = new_table("#", "STATUS", "MESSAGE", "DETAIL")
    for index, item in enumerate(result["results"]):
        if item.get("error"):
            message_id, detail = "-", f"{item['error']['code']}: {item['error']['message']}"
        else:
            message_id, detail = item["messageId"], f"{len(item.get('destinations') or [])} destination(s)"
            if item.get("deliverAt"):
                detail += f", due {_due(item)}"
        add_row(table, str(index), str(item["status"]), message_id, detail)
    return [table, Text(f"{result['failedCount']} refused of {len(result['results'])}")]


def _message_cells(message: Json, *, due: bool) -> tuple[str, ...]:
    return (
        message["messageId"],
        event_text(message),
        show_time(message["publishedAt"]),
        *((show_time(message.get("deliverAt")),) if due else ()),
        message["correlationId"],
        deliveries_summary(message.get("deliveries") or []),
    )


def messages_table(page: Json) -> list[RenderableType]:
    """A page of a room's messages; with a DUE column (``deliverAt``) when any of them was
    scheduled (`messages list --scheduled`: all of them, soonest first)."""
    due = any(message.get("deliverAt") for message in page["messages"])
    columns = ("MESSAGE", "EVENT", "PUBLISHED", *(("DUE",) if due else ()), "CORRELATION", "DELIVERIES")
    return page_table(
        page, "messages", columns, lambda message: _message_cells(message, due=due), empty="no messages"
    )


def _delivery_cells(delivery: Json) -> tuple[str, ...]:
    return (
        delivery["messageId"],
        event_text(delivery),
        delivery["status"],
        str(delivery["attempts"]),
        show_time(delivery.get("nextAttemptAt")),
        excerpt(delivery.get("lastError")),
    )


def deliveries_table(page: Json) -> list[RenderableType]:
    columns = ("MESSAGE", "EVENT", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR")
    return page_table(page, "deliveries", columns, _delivery_cells, empty="no deliveries")


def _dead_letter_cells(letter: Json) -> tuple[str, ...]:
    return (
        letter["messageId"],
        event_text(letter),
        show_time(letter["deadAt"]),
        str(letter["attempts"]),
        excerpt(letter.get("reason")),
    )


def dead_letters_table(page: Json) -> list[RenderableType]:
    columns = ("MESSAGE", "EVENT", "DIED", "ATTEMPTS", "REASON")
    return page_table(page, "deadLetters", columns, _dead_letter_cells, empty="no dead letters")


def replay_result(result: Json) -> list[RenderableType]:
    lines: list[RenderableType] = [Text(f"replayed {len(result['replayed'])} dead letter(s)")]
    for name, label in (("notFound", "not found"), ("alreadyReplaying", "already being replayed")):
        if result.get(name):
            lines.append(Text(f"{label}: {', '.join(result[name])}"))
    return lines


def job_result(job: Json) -> list[RenderableType]:
    """A finished job: what it did (its kind's counts) and what it looked at."""
    done = ", ".join(
        f"{name} {value}" for name, value in job["counts"].items() if name != "examined" and value is not None
    )
    return [Text(f"{job['kind']} {job['state']}: {done} ({job['counts']['examined']} looked at)")]


def _empty_pull(subscription: Json | None) -> list[RenderableType]:
    """``no messages``, and why when the subscription (read after an empty pull) tells: then the
    command to look further, on a line of its own that is never folded, so it copies whole."""
    if subscription is None:
        return [Text("no messages")]
    ids = f"{subscription.get('roomId', 'ROOM')} {subscription.get('id', 'SUB')}"
    if subscription.get("status") == "disabled":
        why = "this subscription is disabled: no new message reaches it"
        then = f"to enable it: roomcast subscriptions resume {ids}"
    elif subscription.get("ordered"):
        why = (
            "this subscription is ordered: a key's next message is handed out shortly after the one "
            "before it is acked, or ends dead, expired or cleared; a nacked one, or one whose ack "
            "wait ran out, is handed out again first"
        )
        then = f"keys paused on a dead message: roomcast ordering-keys paused {ids}"
    else:
        return [Text("no messages")]
    return [Text(f"no messages ({why})"), Text(then, style="dim", no_wrap=True, overflow="ignore")]


def pulled_messages(data: Json, subscription: Json | None = None) -> list[RenderableType]:
    """Pulled messages with their receipts; an empty pull says why when ``subscription`` (read
    only then) tells."""
    messages = data["messages"]
    if not messages:
        return _empty_pull(subscription)
    table = new_table("MESSAGE", "EVENT", "ATTEMPT", "PUBLISHED", "PAYLOAD")
    for message in messages:
        add_row(
            table,
            message["messageId"],
            event_text(message),
            str(message["attempt"]),
            show_time(message["publishedAt"]),
            excerpt(compact_json(message["payload"])),
        )
    # Receipts are long: one per line, never folded, so each copies whole.
    receipts = [Text(m["receipt"], no_wrap=True, overflow="ignore") for m in messages]
    return [table, Text("receipts (for ack, nack, extend):", style="dim"), *receipts]


def receipts_result(data: Json) -> list[RenderableType]:
    """The answer of ack, nack or extend: what succeeded, then what failed and why."""
    lines: list[RenderableType] = []
    for name in ("acked", "extended"):
        if name in data:
            lines.append(
                Text(f"{name} {len(data[name])}: {', '.join(data[name])}" if data[name] else f"{name} 0")
            )
    for outcome in data.get("nacked", []):
        when = (
            f", next attempt at {show_time(outcome['nextAttemptAt'])}" if outcome.get("nextAttemptAt") else ""
        )
        lines.append(Text(f"nacked {outcome['messageId']}: {outcome['outcome']}{when}"))
    for failure in data.get("failed", []):
        lines.append(
            Text(f"failed {failure.get('messageId') or failure['receipt']}: {failure['error']}", style="red")
        )
    return lines


def webhook_line(delivery: Json) -> Text:
    """``roomcast listen``'s line for one verified delivery."""
    body = delivery.get("body") or {}
    if not isinstance(body, Mapping):
        received = show_time(delivery.get("receivedAt"))
        return Text(f"{received}  {delivery.get('webhookId', '')}  {excerpt(compact_json(body), 120)}")
    return Text(
        f"{show_time(delivery.get('receivedAt'))}  {body.get('eventType', '?')} "
        f"v{body.get('eventVersion', '?')}  {body.get('messageId', delivery.get('webhookId', '?'))}  "
        f"attempt {body.get('attempt', '?')}  "
        f"{excerpt(compact_json(body.get('payload')), 120)}  [signature ok → {delivery.get('answered')}]"
    )
