"""`roomcast subscriptions …`: create, list, show, patch, delete, pause, resume, rotate-secret, schedule."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli.common import (
    AllPages,
    Assignments,
    Cursor,
    JsonFlag,
    Limit,
    RoomId,
    SubscriptionId,
    Yes,
    dump,
    fields_of,
    page_json,
)
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import parse_event_types
from roomcast_cli.session import confirm, session_of

app = typer.Typer(
    help="Subscriptions: PUSH (signed webhooks) or PULL (a queue) deliveries of a room's messages.",
    no_args_is_help=True,
)

PushUrl = Annotated[
    str | None, typer.Option(help="PUSH: the webhook URL (https; http to loopback on the local stack).")
]
EventTypes = Annotated[
    list[str] | None,
    typer.Option(
        "--event-type", "-e", metavar="NAME[:V1,V2]", help="Only these event types (repeatable; none = all)."
    ),
]
DelayMs = Annotated[int | None, typer.Option(help="deliveryDelayMs override.")]
Multiplier = Annotated[float | None, typer.Option(help="deliveryDelayMultiplier override.")]
Attempts = Annotated[int | None, typer.Option(help="deliveryAttempts override (redeliveries).")]
MaxDelayMs = Annotated[int | None, typer.Option(help="maxDelayMs: the cap on each wait.")]
Jitter = Annotated[float | None, typer.Option(help="jitter: a fraction (0-1) of each wait drawn at random.")]
Schedule = Annotated[
    str | None,
    typer.Option(metavar="MS,MS,…", help="retryScheduleMs: explicit waits that replace the formula."),
]
TimeoutMs = Annotated[int | None, typer.Option(help="PUSH timeoutMs: the webhook request's deadline.")]
AckWaitMs = Annotated[
    int | None, typer.Option(help="PULL ackWaitMs: a pulled message comes back when not acked in time.")
]
Failover = Annotated[
    str | None, typer.Option(help="failoverSubscriptionId: where a message goes instead of dead.")
]
MaxConcurrency = Annotated[int | None, typer.Option(help="PUSH maxConcurrency: requests in flight at most.")]
RateLimit = Annotated[float | None, typer.Option(help="PUSH rateLimitPerSecond.")]
DisableAfter = Annotated[int | None, typer.Option(help="PUSH disableAfterFailingMs.")]


def _schedule(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CliError(
            f"--retry-schedule-ms takes milliseconds separated by commas (1000,5000), got {text!r}."
        ) from None


# Each option's API field; `_subscription_fields(locals())` takes those a command has and was given.
_FIELD_OF_OPTION = {
    "push_url": "pushUrl",
    "event_type": "eventTypes",
    "delivery_delay_ms": "deliveryDelayMs",
    "delivery_delay_multiplier": "deliveryDelayMultiplier",
    "delivery_attempts": "deliveryAttempts",
    "max_delay_ms": "maxDelayMs",
    "jitter": "jitter",
    "retry_schedule_ms": "retryScheduleMs",
    "timeout_ms": "timeoutMs",
    "ack_wait_ms": "ackWaitMs",
    "failover": "failoverSubscriptionId",
    "max_concurrency": "maxConcurrency",
    "rate_limit_per_second": "rateLimitPerSecond",
    "disable_after_failing_ms": "disableAfterFailingMs",
}


def _subscription_fields(options: dict[str, Any]) -> dict[str, Any]:
    """The request's fields from a command's options: the flags given, then ``--set`` over them."""
    flags = {field: options[option] for option, field in _FIELD_OF_OPTION.items() if option in options}
    flags["eventTypes"] = parse_event_types(flags["eventTypes"]) if flags["eventTypes"] else None
    flags["retryScheduleMs"] = _schedule(flags["retryScheduleMs"])
    return fields_of(flags, options["assignments"])


@app.command("create")
def create(
    context: typer.Context,
    room_id: RoomId,
    push_url: PushUrl = None,
    pull: Annotated[
        bool, typer.Option("--pull", help="A PULL subscription (its own queue) instead of PUSH.")
    ] = False,
    event_type: EventTypes = None,
    delivery_delay_ms: DelayMs = None,
    delivery_delay_multiplier: Multiplier = None,
    delivery_attempts: Attempts = None,
    max_delay_ms: MaxDelayMs = None,
    jitter: Jitter = None,
    retry_schedule_ms: Schedule = None,
    timeout_ms: TimeoutMs = None,
    ack_wait_ms: AckWaitMs = None,
    failover: Failover = None,
    max_concurrency: MaxConcurrency = None,
    rate_limit_per_second: RateLimit = None,
    disable_after_failing_ms: DisableAfter = None,
    assignments: Assignments = None,
    json_output: JsonFlag = False,
) -> None:
    """Create a PUSH subscription (--push-url) or a PULL one (--pull). A PUSH subscription's signing
    secret is shown once, in this answer."""
    if pull == (push_url is not None):
        raise CliError("Give either --push-url URL (a PUSH subscription) or --pull.")
    fields = {"type": "PULL" if pull else "PUSH", **_subscription_fields(locals())}
    session = session_of(context, json_output)
    created = dump(session.client.subscriptions.create(room_id, **fields))
    session.output.result(created, render.subscription_details)


@app.command("list")
def list_subscriptions(
    context: typer.Context,
    room_id: RoomId,
    limit: Limit = None,
    cursor: Cursor = None,
    all_pages: AllPages = False,
    json_output: JsonFlag = False,
) -> None:
    """List a room's subscriptions."""
    session = session_of(context, json_output)
    page = page_json(
        session,
        "subscriptions",
        lambda at: session.client.subscriptions.list(room_id, limit=limit, cursor=at),
        cursor,
        all_pages,
    )
    session.output.result(page, render.subscriptions_table)


@app.command("show")
def show(
    context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, json_output: JsonFlag = False
) -> None:
    """Show a subscription."""
    session = session_of(context, json_output)
    subscription = dump(session.client.subscriptions.get(room_id, subscription_id))
    session.output.result(subscription, render.subscription_details)


@app.command("patch")
def patch(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    push_url: PushUrl = None,
    event_type: EventTypes = None,
    delivery_delay_ms: DelayMs = None,
    delivery_delay_multiplier: Multiplier = None,
    delivery_attempts: Attempts = None,
    max_delay_ms: MaxDelayMs = None,
    jitter: Jitter = None,
    retry_schedule_ms: Schedule = None,
    timeout_ms: TimeoutMs = None,
    ack_wait_ms: AckWaitMs = None,
    failover: Failover = None,
    max_concurrency: MaxConcurrency = None,
    rate_limit_per_second: RateLimit = None,
    disable_after_failing_ms: DisableAfter = None,
    assignments: Assignments = None,
    json_output: JsonFlag = False,
) -> None:
    """Change a subscription's fields (only those given; --set field=null goes back to the room's value)."""
    fields = _subscription_fields(locals())
    if not fields:
        raise CliError("Nothing to change: give at least one option or --set field=value.")
    session = session_of(context, json_output)
    updated = dump(session.client.subscriptions.update(room_id, subscription_id, **fields))
    session.output.result(updated, render.subscription_details)


@app.command("delete")
def delete(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    yes: Yes = False,
    json_output: JsonFlag = False,
) -> None:
    """Delete a subscription (a PULL subscription's queue goes with it)."""
    session = session_of(context, json_output)
    confirm(session, f"Delete subscription {subscription_id}?", yes)
    session.client.subscriptions.delete(room_id, subscription_id)
    session.output.result(
        {"deleted": subscription_id}, lambda _d: render.line(f"deleted subscription {subscription_id}")
    )


@app.command("pause")
def pause(
    context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, json_output: JsonFlag = False
) -> None:
    """Pause deliveries: they wait (until resumed or expired)."""
    session = session_of(context, json_output)
    subscription = dump(session.client.subscriptions.pause(room_id, subscription_id))
    session.output.result(subscription, lambda data: render.line(f"{data['id']} is {data['status']}"))


@app.command("resume")
def resume(
    context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, json_output: JsonFlag = False
) -> None:
    """Resume a paused (or disabled) subscription."""
    session = session_of(context, json_output)
    subscription = dump(session.client.subscriptions.resume(room_id, subscription_id))
    session.output.result(subscription, lambda data: render.line(f"{data['id']} is {data['status']}"))


@app.command("rotate-secret")
def rotate_secret(
    context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, json_output: JsonFlag = False
) -> None:
    """A new signing secret for a PUSH subscription; the previous ones keep signing for 24 hours."""
    session = session_of(context, json_output)
    rotated = dump(session.client.subscriptions.rotate_secret(room_id, subscription_id))
    session.output.result(rotated, render.rotated_secret)


@app.command("schedule")
def schedule(
    context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, json_output: JsonFlag = False
) -> None:
    """The subscription's effective retry policy and every attempt it allows."""
    session = session_of(context, json_output)
    preview = dump(session.client.subscriptions.schedule(room_id, subscription_id))
    session.output.result(preview, render.schedule_table)
