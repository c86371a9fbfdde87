"""`roomcast subscriptions …`: create, list, show, patch, delete, pause, resume, rotate-secret, schedule."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import RenderableType

from roomcast_cli import render
from roomcast_cli.common import (
    RoomId,
    SubscriptionId,
    confirm_options,
    confirmed_session,
    dump,
    edit_options,
    paging_options,
    print_pages,
    request_fields,
    retry_options,
    subscription_command,
    with_options,
)
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import parse_json
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
RecoveryProbes = Annotated[
    bool | None,
    typer.Option(
        "--recovery-probes/--no-recovery-probes",
        help="PUSH recoveryProbes: once disabled automatically, probe the endpoint and re-enable it "
        "when it answers 2xx (default on).",
    ),
]
Ordered = Annotated[
    bool | None,
    typer.Option(
        "--ordered/--not-ordered", help="ordered: a key's messages one at a time, in publish order."
    ),
]
OnDeadKey = Annotated[
    str | None, typer.Option(metavar="pause|skip", help="onDeadKey: what a key does when its message dies.")
]
FilterPolicy = Annotated[
    str | None,
    typer.Option(metavar="JSON", help="filterPolicy: an SNS filter policy on the payload; null removes it."),
]


def _schedule(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CliError(
            f"--retry-schedule-ms takes milliseconds separated by commas (1000,5000), got {text!r}."
        ) from None


def _filter_policy(text: str) -> Any:
    return parse_json(text, "--filter-policy")


def target_options(push_url: PushUrl = None, event_type: EventTypes = None) -> None:
    """Where a subscription's deliveries go (PUSH), and which messages it takes."""


def policy_options(
    max_delay_ms: MaxDelayMs = None,
    jitter: Jitter = None,
    retry_schedule_ms: Schedule = None,
    timeout_ms: TimeoutMs = None,
    ack_wait_ms: AckWaitMs = None,
    failover: Failover = None,
    max_concurrency: MaxConcurrency = None,
    rate_limit_per_second: RateLimit = None,
    disable_after_failing_ms: DisableAfter = None,
    recovery_probes: RecoveryProbes = None,
    filter_policy: FilterPolicy = None,
    ordered: Ordered = None,
    on_dead_key: OnDeadKey = None,
) -> None:
    """The options of create and patch that set a subscription's fields, after its delivery
    policy's overrides."""


# The options of create and patch that set a subscription's fields.
_FIELD_OPTIONS = (target_options, retry_options, policy_options)


def _subscription_fields(options: dict[str, Any]) -> dict[str, Any]:
    return request_fields(
        _FIELD_OPTIONS,
        options,
        renamed={"failover": "failoverSubscriptionId"},
        readers={
            "retry_schedule_ms": _schedule,
            "filter_policy": lambda text: parse_json(text, "--filter-policy"),
        },
    )


@app.command("create")
@with_options(*_FIELD_OPTIONS, edit_options)
def create(
    context: typer.Context,
    room_id: RoomId,
    pull: Annotated[
        bool, typer.Option("--pull", help="A PULL subscription (its own queue) instead of PUSH.")
    ] = False,
    consumer: Annotated[str | None, typer.Option(help="Your customer it belongs to (consumerId).")] = None,
    **options: Any,
) -> None:
    """Create a PUSH subscription (--push-url) or a PULL one (--pull). A PUSH subscription's signing
    secret is shown once, in this answer."""
    if pull == (options["push_url"] is not None):
        raise CliError("Give either --push-url URL (a PUSH subscription) or --pull.")
    fields = {"type": "PULL" if pull else "PUSH", **_subscription_fields(options)}
    if consumer is not None:
        fields["consumerId"] = consumer
    session = session_of(context, options["json_output"])
    created = dump(session.client.subscriptions.create(room_id, **fields))
    session.output.result(created, render.subscription_details)


@app.command("list")
@with_options(paging_options)
def list_subscriptions(
    context: typer.Context,
    room_id: RoomId,
    consumer: Annotated[str | None, typer.Option(help="Only this customer's (its consumerId).")] = None,
    **options: Any,
) -> None:
    """List a room's subscriptions."""
    print_pages(
        context,
        options,
        "subscriptions",
        render.subscriptions_table,
        lambda client, limit, at: client.subscriptions.list(
            room_id, limit=limit, cursor=at, consumer_id=consumer
        ),
    )


def _status_line(data: dict[str, Any]) -> RenderableType:
    return render.line(f"{data['id']} is {data['status']}")


app.command("show")(
    subscription_command(
        "Show a subscription.",
        render.subscription_details,
        lambda client, room, sub: client.subscriptions.get(room, sub),
    )
)


@app.command("patch")
@with_options(*_FIELD_OPTIONS, edit_options)
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


app.command("pause")(
    subscription_command(
        "Pause deliveries: they wait (until resumed or expired).",
        _status_line,
        lambda client, room, sub: client.subscriptions.pause(room, sub),
    )
)
app.command("resume")(
    subscription_command(
        "Resume a paused (or disabled) subscription.",
        _status_line,
        lambda client, room, sub: client.subscriptions.resume(room, sub),
    )
)
app.command("rotate-secret")(
    subscription_command(
        "A new signing secret for a PUSH subscription; the previous ones keep signing for 24 hours.",
        render.rotated_secret,
        lambda client, room, sub: client.subscriptions.rotate_secret(room, sub),
    )
)
app.command("schedule")(
    subscription_command(
        "The subscription's effective retry policy and every attempt it allows.",
        render.schedule_table,
        lambda client, room, sub: client.subscriptions.schedule(room, sub),
    )
)
