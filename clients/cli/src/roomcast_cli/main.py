"""`roomcast`: the command tree and the entry point, which turns every failure into a message on
stderr and a documented exit code (exit_codes.py, docs/cli.md)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from roomcast_cli import __version__, render
from roomcast_cli.commands import (
    alerts,
    api_keys,
    deliveries,
    event_types,
    filters,
    listen,
    messages,
    metrics,
    ordering_keys,
    portal,
    pull,
    rooms,
    subscriptions,
)
from roomcast_cli.common import JsonFlag
from roomcast_cli.config import API_KEY_VARIABLE, URL_VARIABLE, ConfigurationError
from roomcast_cli.exit_codes import CliError, ExitCode, exit_code_for_status
from roomcast_cli.output import Output
from roomcast_cli.session import GlobalOptions, current_session, forget_sessions, session_of

if TYPE_CHECKING:
    from roomcast_client import ApiError

app = typer.Typer(
    name="roomcast",
    help="roomcast from the command line: rooms, subscriptions, publishing, deliveries, dead letters, "
    "PULL queues, API keys, the customers' portal, metrics, alerts, and `listen` for webhooks on this "
    "machine.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(rooms.app, name="rooms")
app.add_typer(subscriptions.app, name="subscriptions")
app.add_typer(filters.app, name="filters")
app.add_typer(event_types.app, name="event-types")
app.add_typer(messages.app, name="messages")
app.add_typer(deliveries.deliveries_app, name="deliveries")
app.add_typer(deliveries.dead_letters_app, name="dead-letters")
app.add_typer(api_keys.app, name="api-keys")
app.add_typer(ordering_keys.app, name="ordering-keys")
app.add_typer(alerts.app, name="alerts")
app.add_typer(portal.app, name="portal")
app.command("publish")(messages.publish)
app.command("pull", rich_help_panel="PULL subscriptions")(pull.pull)
app.command("ack", rich_help_panel="PULL subscriptions")(pull.ack)
app.command("nack", rich_help_panel="PULL subscriptions")(pull.nack)
app.command("extend", rich_help_panel="PULL subscriptions")(pull.extend)
app.command("listen")(listen.listen)
app.command("metrics")(metrics.metrics)


def _version(value: bool) -> None:
    if value:
        print(f"roomcast {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    context: typer.Context,
    url: Annotated[
        str | None,
        typer.Option(
            "--url", help=f"The API's base URL (else {URL_VARIABLE}, else the running local stack)."
        ),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", help=f"The API key (else {API_KEY_VARIABLE}, else the local stack's)."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Every command prints the API's JSON.")] = False,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds to wait for each API answer.")] = 30.0,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    context.obj = GlobalOptions(url=url, api_key=api_key, json_output=json_output, timeout_s=timeout)


@app.command("config")
def show_config(context: typer.Context, json_output: JsonFlag = False) -> None:
    """Where roomcast sends requests and where that came from (flags, environment, local stack)."""
    session = session_of(context, json_output)
    connection = session.connection
    key = connection.api_key
    data = {
        "apiUrl": connection.api_url,
        "apiUrlFrom": connection.url_source,
        "apiKey": key[:6] + "…" + key[-4:] if len(key) > 12 else "…",
        "apiKeyFrom": connection.key_source,
    }
    session.output.result(data, lambda shown: render.details(shown))


def _report(message: str, code: ExitCode, error: dict[str, Any] | None = None) -> int:
    """The failure on stderr: ``error: …`` for people, the API's error object with ``--json``."""
    session = current_session()
    output = session.output if session is not None else Output(json_mode="--json" in sys.argv[1:])
    if output.json_mode:
        output.errors.print(
            render.compact_json({"error": error or {"code": code.name.lower(), "message": message}}),
            markup=False,
            soft_wrap=True,
        )
    else:
        output.errors.print(f"error: {message}", markup=False, soft_wrap=True)
    return int(code)


def _api_error_text(error: ApiError) -> str:
    text = f"{error.message} ({error.status} {error.code})"
    for detail in error.details or []:
        if isinstance(detail, dict) and detail.get("field"):
            text += f"\n  {detail['field']}: {detail.get('problem', '')}"
    if error.status in (401, 403):
        session = current_session()
        source = session.connection.key_source if session is not None else API_KEY_VARIABLE
        text += f"\n  the API refused the key from {source}: check --api-key or {API_KEY_VARIABLE}"
    return text


def run(arguments: list[str] | None = None) -> int:
    """Run one command line; the exit code (docs/cli.md)."""
    forget_sessions()
    try:
        app(args=arguments, prog_name="roomcast")  # click's usage errors print themselves and exit 2
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except CliError as error:
        return _report(error.message, error.exit_code)
    except ConfigurationError as error:
        return _report(str(error), ExitCode.UNREACHABLE)
    except KeyboardInterrupt:
        return _report("interrupted", ExitCode.INTERRUPTED)
    except Exception as error:
        if "roomcast_client" not in sys.modules:  # not the SDK's: a bug, with its traceback
            raise
        return _report_sdk_error(error)
    return 0


def _report_sdk_error(error: Exception) -> int:
    """The SDK's exceptions (imported only once a command has used the SDK)."""
    from roomcast_client import ApiError, ResponseError, RoomcastError

    if isinstance(error, ApiError):
        body = {
            "status": error.status,
            "code": error.code,
            "message": error.message,
            "details": error.details,
        }
        return _report(_api_error_text(error), exit_code_for_status(error.status), body)
    if isinstance(error, ResponseError):  # a 2xx the SDK could not read: not the roomcast API
        return _report(f"the API's answer could not be read: {error}", ExitCode.SERVER_ERROR)
    if isinstance(error, RoomcastError):  # the API could not be reached
        session = current_session()
        known = session is not None and "connection" in vars(session)
        where = f" at {session.connection.api_url}" if session is not None and known else ""
        return _report(f"cannot reach the roomcast API{where}: {error}", ExitCode.UNREACHABLE)
    raise error


def main() -> None:
    sys.exit(run())
