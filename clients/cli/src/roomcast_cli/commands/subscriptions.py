"""`roomcast subscriptions …`: create, list, show, patch, delete, pause, resume, rotate-secret, schedule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import RenderableType

from roomcast_cli import render
from roomcast_cli.common import (
    Assignments,
    JsonFlag,
    RoomId,
    SubscriptionId,
    confirm_options,
    confirmed_session,
    dump,
    fields_of,
    paging_options,
    print_pages,
    with_options,
)
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import parse_event_types
from roomcast_cli.output import Renderer
from roomcast_cli.session import session_of

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


# Each option's API field; `_subscription_fields(options)` takes those a command was given.
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


def policy_options(
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
    """The option set of create and patch: a subscription's fields."""


@app.command("create")
@with_options(policy_options)
def create(
    context: typer.Context,
    room_id: RoomId,
    pull: Annotated[
        bool, typer.Option("--pull", help="A PULL subscription (its own queue) instead of PUSH.")
    ] = False,
    **options: Any,
) -> None:
    """Create a PUSH subscription (--push-url) or a PULL one (--pull). A PUSH subscription's signing
    secret is shown once, in this answer."""
    if pull == (options["push_url"] is not None):
        raise CliError("Give either --push-url URL (a PUSH subscription) or --pull.")
    fields = {"type": "PULL" if pull else "PUSH", **_subscription_fields(options)}
    session = session_of(context, options["json_output"])
    created = dump(session.client.subscriptions.create(room_id, **fields))
    session.output.result(created, render.subscription_details)


@app.command("list")
@with_options(paging_options)
def list_subscriptions(context: typer.Context, room_id: RoomId, **options: Any) -> None:
    """List a room's subscriptions."""
    print_pages(
        context,
        options,
        "subscriptions",
        render.subscriptions_table,
        lambda client, limit, at: client.subscriptions.list(room_id, limit=limit, cursor=at),
    )


def _one_subscription_command(
    name: str, summary: str, call: Callable[[Any, str, str], Any], renderer: Renderer
) -> None:
    """A command on one subscription that prints what the API answers."""

    def command(
        context: typer.Context,
        room_id: RoomId,
        subscription_id: SubscriptionId,
        json_output: JsonFlag = False,
    ) -> None:
        session = session_of(context, json_output)
        session.output.result(dump(call(session.client.subscriptions, room_id, subscription_id)), renderer)

    app.command(name, help=summary)(command)


def _status_line(data: dict[str, Any]) -> RenderableType:
    return render.line(f"{data['id']} is {data['status']}")


_one_subscription_command(
    "show", "Show a subscription.", lambda api, room, sub: api.get(room, sub), render.subscription_details
)


@app.command("patch")
@with_options(policy_options)
def patch(context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, **options: Any) -> None:
    """Change a subscription's fields (only those given; --set field=null goes back to the room's value)."""
    fields = _subscription_fields(options)
    if not fields:
        raise CliError("Nothing to change: give at least one option or --set field=value.")
    session = session_of(context, options["json_output"])
    updated = dump(session.client.subscriptions.update(room_id, subscription_id, **fields))
    session.output.result(updated, render.subscription_details)


@app.command("delete")
@with_options(confirm_options)
def delete(context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, **options: Any) -> None:
    """Delete a subscription (a PULL subscription's queue goes with it)."""
    session = confirmed_session(context, options, f"Delete subscription {subscription_id}?")
    session.client.subscriptions.delete(room_id, subscription_id)
    session.output.result(
        {"deleted": subscription_id}, lambda _d: render.line(f"deleted subscription {subscription_id}")
    )


_one_subscription_command(
    "pause",
    "Pause deliveries: they wait (until resumed or expired).",
    lambda api, room, sub: api.pause(room, sub),
    _status_line,
)
_one_subscription_command(
    "resume",
    "Resume a paused (or disabled) subscription.",
    lambda api, room, sub: api.resume(room, sub),
    _status_line,
)
_one_subscription_command(
    "rotate-secret",
    "A new signing secret for a PUSH subscription; the previous ones keep signing for 24 hours.",
    lambda api, room, sub: api.rotate_secret(room, sub),
    render.rotated_secret,
)
_one_subscription_command(
    "schedule",
    "The subscription's effective retry policy and every attempt it allows.",
    lambda api, room, sub: api.schedule(room, sub),
    render.schedule_table,
)
