"""Options and helpers the command modules share."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar, cast

import typer

from roomcast_cli import render
from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.output import Renderer
from roomcast_cli.session import Session, confirm, session_of

Command = TypeVar("Command", bound=Callable[..., None])
JOB_POLL_SECONDS = 0.5
# How a list command reads one page: (client, limit, cursor) -> the SDK's page.
PageFetch = Callable[[Any, int | None, str | None], Any]

JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print the API's JSON (for scripts) instead of tables.")
]
Limit = Annotated[
    int | None, typer.Option(min=1, max=100, help="Page size (1-100; the API's default is 50).")
]
Cursor = Annotated[str | None, typer.Option(help="Start at this page (the nextCursor of the previous one).")]
AllPages = Annotated[bool, typer.Option("--all", help="Follow nextCursor to the end and print every item.")]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
RoomId = Annotated[str, typer.Argument(help="The room's id (room_…).", show_default=False)]
SubscriptionId = Annotated[str, typer.Argument(help="The subscription's id (sub_…).", show_default=False)]
DelayMs = Annotated[int | None, typer.Option(help="deliveryDelayMs: the wait before the first redelivery.")]
Multiplier = Annotated[
    float | None,
    typer.Option(help="deliveryDelayMultiplier: each further wait is this many times longer (>= 1)."),
]
Attempts = Annotated[
    int | None, typer.Option(help="deliveryAttempts: redeliveries after the first delivery.")
]
Assignments = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="FIELD=VALUE",
        help="Set any API field by its name; VALUE is read as JSON when it is JSON (5, null, [1000,2000]), "
        "else as text. Repeatable.",
    ),
]


def dump(value: Any) -> Any:
    """An SDK result as the API's JSON (camelCase field names)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list | tuple):
        return [dump(item) for item in value]
    return value


def page_json(
    session: Session,
    items_key: str,
    fetch: Callable[[str | None], Any],
    cursor: str | None,
    all_pages: bool,
) -> dict[str, Any]:
    """One page as the API answers it (``{items_key: [...], "nextCursor": ...}``), or with
    ``--all`` every page's items and ``nextCursor`` null."""
    items: list[Any] = []
    next_cursor = cursor
    with session.output.waiting(f"reading {items_key}…") as progress:
        while True:
            page = fetch(next_cursor)
            items.extend(dump(item) for item in page.items)
            next_cursor = page.next_cursor
            if not all_pages or not next_cursor:
                break
            progress(f"reading {items_key}… {len(items)} so far")
    return {items_key: items, "nextCursor": next_cursor}


def with_options(*option_sets: Callable[..., None]) -> Callable[[Command], Command]:
    """Typer reads a command's options from its signature: this appends the parameters of each
    option set (a function that only declares them) to the command's own, and the command takes
    them in its ``**options``. An option set several commands take is written once."""

    def decorate(command: Command) -> Command:
        own = inspect.signature(command, eval_str=True).parameters.values()
        added = [
            parameter
            for option_set in option_sets
            for parameter in inspect.signature(option_set, eval_str=True).parameters.values()
        ]
        kept = [parameter for parameter in own if parameter.kind is not parameter.VAR_KEYWORD]
        cast(Any, command).__signature__ = inspect.Signature([*kept, *added], return_annotation=None)
        return command

    return decorate


def json_option(json_output: JsonFlag = False) -> None:
    """The option set of a command that only prints: ``--json``."""


def edit_options(assignments: Assignments = None, json_output: JsonFlag = False) -> None:
    """What create and patch take after their fields' own options: ``--set`` and ``--json``."""


def paging_options(
    limit: Limit = None, cursor: Cursor = None, all_pages: AllPages = False, json_output: JsonFlag = False
) -> None:
    """The option set of every list command."""


def retry_options(
    delivery_delay_ms: DelayMs = None,
    delivery_delay_multiplier: Multiplier = None,
    delivery_attempts: Attempts = None,
) -> None:
    """The options of the delivery policy a room sets and a subscription may override."""


def confirm_options(yes: Yes = False, json_output: JsonFlag = False) -> None:
    """The option set of a destructive command: ``--yes`` and ``--json``."""


def confirmed_session(context: typer.Context, options: dict[str, Any], question: str) -> Session:
    """A destructive command's session, once the user said yes (or gave ``--yes``)."""
    session = session_of(context, options["json_output"])
    confirm(session, question, options["yes"])
    return session


def print_job(session: Session, job: Any, doing: str) -> None:
    """Wait for a job a command started (Clear All, purge, replay, room deletion), showing its
    progress, then print it. A job that failed ends the command with SERVER_ERROR."""
    with session.output.waiting(f"{doing}…") as progress:
        while not job.finished:
            time.sleep(JOB_POLL_SECONDS)
            job = session.client.jobs.get(job.id)
            progress(f"{doing}… {job.counts.examined} looked at")
    if job.state == "failed":
        raise CliError(f"the {job.kind} job {job.id} failed: {job.error}", ExitCode.SERVER_ERROR)
    session.output.result(dump(job), render.job_result)


def subscription_command(
    summary: str, renderer: Renderer, call: Callable[..., Any], *option_sets: Callable[..., None]
) -> Callable[..., None]:
    """A command on one subscription (ROOM_ID SUBSCRIPTION_ID, the options of ``option_sets``,
    ``--json``) that prints what the API answers: ``call(client, room_id, subscription_id,
    **options)``."""

    @with_options(*option_sets, json_option)
    def command(
        context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, **options: Any
    ) -> None:
        session = session_of(context, options.pop("json_output"))
        session.output.result(dump(call(session.client, room_id, subscription_id, **options)), renderer)

    command.__doc__ = summary
    return command


def list_command(
    app: typer.Typer, summary: str, items_key: str, renderer: Renderer, fetch: PageFetch
) -> None:
    """Registers ``list`` on a command group whose list takes no argument (rooms, api-keys)."""

    @app.command("list", help=summary)
    @with_options(paging_options)
    def command(context: typer.Context, **options: Any) -> None:
        print_pages(context, options, items_key, renderer, fetch)


def print_pages(
    context: typer.Context, options: dict[str, Any], items_key: str, renderer: Renderer, fetch: PageFetch
) -> None:
    """A list command's work: one page (or with ``--all`` every page), printed."""
    session = session_of(context, options["json_output"])
    page = page_json(
        session,
        items_key,
        lambda at: fetch(session.client, options["limit"], at),
        options["cursor"],
        options["all_pages"],
    )
    session.output.result(page, renderer)


def request_fields(
    field_options: Sequence[Callable[..., None]],
    options: dict[str, Any],
    *,
    renamed: dict[str, str],
    readers: dict[str, Callable[[Any], Any]] | None = None,
    **given: Any,
) -> dict[str, Any]:
    """A create or patch request's fields: ``given``, then each option of the ``field_options``
    sets that was given (not None), read by its ``readers`` entry if any (``--event-type``'s specs always:
    the ``eventTypes`` list) and named after the option in camelCase (``--delivery-delay-ms`` sets
    ``deliveryDelayMs``) or as ``renamed`` says; then ``--set`` over them."""
    from roomcast_cli.inputs import parse_assignments, parse_event_types

    readers = {"event_type": parse_event_types, **(readers or {})}
    renamed = {"event_type": "eventTypes", **renamed}
    fields = {name: value for name, value in given.items() if value is not None}
    for option in (name for each in field_options for name in inspect.signature(each).parameters):
        value = options.get(option)
        if value is not None:
            read = readers.get(option)
            fields[renamed.get(option) or _camel_case(option)] = read(value) if read else value
    fields.update(parse_assignments(options["assignments"] or []))
    return fields


def _camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)
