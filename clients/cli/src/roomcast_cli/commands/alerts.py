"""`roomcast alerts …`: the rules firing and the recent alerts (the group alone), and the alert
rules: rules, show, create, snooze, unsnooze, delete (docs/alerts.md)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli._enums import WATCHED_SUBSCRIPTION_STATES
from roomcast_cli.common import JsonFlag, confirm_options, confirmed_session, dump, json_option, with_options
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import iso_utc, parse_wait_ms, parse_when
from roomcast_cli.session import GlobalOptions, session_of

app = typer.Typer(
    help="Alerts: the rules firing now and the recent alerts (with no command), and the alert rules "
    "that raise them.",
    invoke_without_command=True,
)

RuleId = Annotated[
    str, typer.Argument(help="The rule's id (alr_…), from `roomcast alerts rules`.", show_default=False)
]
Name = Annotated[str, typer.Option(help="What the rule watches, in the notifications (1-200 characters).")]
SuccessRateBelow = Annotated[
    float | None,
    typer.Option(min=0, max=1, metavar="RATE", help="Fire when the success rate (0-1) is below RATE."),
]
Window = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=1440,
        metavar="MINUTES",
        help="The success rate's or the p95 latency's window: the last this many minutes (default 5).",
    ),
]
MinDeliveries = Annotated[
    int | None,
    typer.Option(
        min=1, help="With --success-rate-below: fewer attempts in the window never fire (default 1)."
    ),
]
P95LatencyAbove = Annotated[
    float | None,
    typer.Option(min=0, metavar="MS", help="Fire when the endpoint's p95 answer time is above MS."),
]
OldestBacklogAbove = Annotated[
    float | None,
    typer.Option(min=0, metavar="MS", help="Fire when the oldest open delivery has waited longer than MS."),
]
_STATES = ",".join(WATCHED_SUBSCRIPTION_STATES)
StateIn = Annotated[
    str | None,
    typer.Option(
        metavar="STATE,…",
        help=f"Fire while the subscription is in one of these states ({_STATES}); needs --subscription.",
    ),
]
Room = Annotated[
    str | None, typer.Option(metavar="ROOM", help="Watch this room (room_…); default the tenant.")
]
Subscription = Annotated[
    str | None, typer.Option(metavar="SUB", help="Watch this subscription (sub_…) of --room.")
]
Webhook = Annotated[
    str | None,
    typer.Option(metavar="URL", help="Notify a signed webhook (https; the rule's signing secret)."),
]
Email = Annotated[str | None, typer.Option(metavar="ADDRESS", help="Notify an e-mail address (through SNS).")]
Slack = Annotated[str | None, typer.Option(metavar="URL", help="Notify a Slack-compatible incoming webhook.")]
For = Annotated[
    str | None, typer.Option("--for", metavar="WAIT", help="Snooze this long from now: 30m, 2h, 1d.")
]
Until = Annotated[
    str | None, typer.Option(metavar="TIME", help="Snooze until this time (ISO 8601, UTC unless it says).")
]


@app.callback()
def alerts(context: typer.Context, json_output: JsonFlag = False) -> None:
    """The rules firing now (what each measured, since when) and the latest alerts, fired and
    resolved, newest first. --json prints the API's answer."""
    if context.invoked_subcommand is not None:
        root = context.find_root()
        if json_output and isinstance(root.obj, GlobalOptions):  # `alerts --json rules`: for the command
            root.obj = dataclasses.replace(root.obj, json_output=True)
        return
    session = session_of(context, json_output)
    session.output.result(dump(session.client.alerts.list()), render.alerts_view)


@app.command("rules")
@with_options(json_option)
def rules(context: typer.Context, **options: Any) -> None:
    """List the alert rules: scope, condition, where they notify, state, snooze."""
    session = session_of(context, options["json_output"])
    session.output.result(dump(session.client.alerts.list_rules()), render.alert_rules_table)


@app.command("show")
@with_options(json_option)
def show(context: typer.Context, rule_id: RuleId, **options: Any) -> None:
    """Show an alert rule, its state and the value it measured at its last change."""
    session = session_of(context, options["json_output"])
    session.output.result(dump(session.client.alerts.get_rule(rule_id)), render.alert_rule_details)


def _states(text: str) -> list[str]:
    states = [state.strip() for state in text.split(",") if state.strip()]
    unknown = [state for state in states if state not in WATCHED_SUBSCRIPTION_STATES]
    if not states or unknown:
        raise CliError(f"--state-in takes states separated by commas ({_STATES}), got {text!r}.")
    return states


def condition_of(
    success_rate_below: float | None,
    p95_latency_above: float | None,
    oldest_backlog_above: float | None,
    state_in: str | None,
    window: int | None,
    min_deliveries: int | None,
) -> dict[str, Any]:
    """The rule's condition: exactly one threshold, with the window and minimum its metric takes."""
    given = {
        "successRate": success_rate_below,
        "p95AttemptLatencyMs": p95_latency_above,
        "oldestBacklogAgeMs": oldest_backlog_above,
        "subscriptionState": state_in,
    }
    metrics = [metric for metric, threshold in given.items() if threshold is not None]
    if len(metrics) != 1:
        raise CliError(
            "Give one condition: --success-rate-below RATE, --p95-latency-above MS, "
            "--oldest-backlog-above MS or --state-in STATE,…"
        )
    metric = metrics[0]
    condition: dict[str, Any] = {"metric": metric}
    if metric == "subscriptionState":
        condition["in"] = _states(str(state_in))
    else:
        condition["below" if metric == "successRate" else "above"] = given[metric]
    if window is not None:
        if metric not in ("successRate", "p95AttemptLatencyMs"):
            raise CliError("--window goes with --success-rate-below or --p95-latency-above.")
        condition["windowMinutes"] = window
    if min_deliveries is not None:
        if metric != "successRate":
            raise CliError("--min-deliveries goes with --success-rate-below.")
        condition["minDeliveries"] = min_deliveries
    return condition


def notify_of(webhook: str | None, email: str | None, slack: str | None) -> dict[str, str]:
    targets = {"webhookUrl": webhook, "email": email, "slackUrl": slack}
    given = {key: value for key, value in targets.items() if value is not None}
    if len(given) != 1:
        raise CliError("Give where to notify: one of --webhook URL, --email ADDRESS or --slack URL.")
    return given


@app.command("create")
def create(
    context: typer.Context,
    name: Name,
    success_rate_below: SuccessRateBelow = None,
    window: Window = None,
    min_deliveries: MinDeliveries = None,
    p95_latency_above: P95LatencyAbove = None,
    oldest_backlog_above: OldestBacklogAbove = None,
    state_in: StateIn = None,
    room: Room = None,
    subscription: Subscription = None,
    webhook: Webhook = None,
    email: Email = None,
    slack: Slack = None,
    json_output: JsonFlag = False,
) -> None:
    """Create an alert rule: one condition on the tenant's, a room's or a subscription's metrics,
    and where to notify. Its signing secret (of the webhook notifications) is shown once, here."""
    condition = condition_of(
        success_rate_below, p95_latency_above, oldest_backlog_above, state_in, window, min_deliveries
    )
    if subscription is not None and room is None:
        raise CliError("--subscription needs the --room it belongs to.")
    if condition["metric"] == "subscriptionState" and subscription is None:
        raise CliError("--state-in watches one subscription: give --room and --subscription.")
    notify = notify_of(webhook, email, slack)
    session = session_of(context, json_output)
    created = session.client.alerts.create_rule(
        name, condition, notify, room_id=room, subscription_id=subscription
    )
    session.output.result(dump(created), render.alert_rule_details)


def snooze_end(wait: str | None, until: str | None, now: datetime) -> str:
    """When a snooze ends, in the API's spelling: ``--for`` from now, or ``--until`` (in the future)."""
    if (wait is None) == (until is None):
        raise CliError("Give how long to snooze: --for WAIT (30m, 2h, 1d) or --until TIME.")
    if wait is not None:
        return iso_utc(now + timedelta(milliseconds=parse_wait_ms(wait, "--for")))
    end = parse_when(str(until), now, "--until")
    if end <= now:
        raise CliError(f"--until {until!r} is not in the future (a wait from now is --for 2h).")
    return iso_utc(end)


@app.command("snooze")
@with_options(json_option)
def snooze(
    context: typer.Context, rule_id: RuleId, wait: For = None, until: Until = None, **options: Any
) -> None:
    """Snooze a rule: no notification before then; when it ends the rule fires or resolves on what it
    measures then."""
    end = snooze_end(wait, until, datetime.now(UTC))
    session = session_of(context, options["json_output"])
    session.output.result(dump(session.client.alerts.snooze(rule_id, end)), render.snoozed_rule)


@app.command("unsnooze")
@with_options(json_option)
def unsnooze(context: typer.Context, rule_id: RuleId, **options: Any) -> None:
    """Lift a rule's snooze."""
    session = session_of(context, options["json_output"])
    session.output.result(dump(session.client.alerts.unsnooze(rule_id)), render.snoozed_rule)


@app.command("delete")
@with_options(confirm_options)
def delete(context: typer.Context, rule_id: RuleId, **options: Any) -> None:
    """Delete an alert rule (its past alerts stay listed)."""
    session = confirmed_session(context, options, f"Delete alert rule {rule_id}?")
    session.client.alerts.delete_rule(rule_id)
    session.output.result({"deleted": rule_id}, lambda _d: render.line(f"deleted alert rule {rule_id}"))
