"""What every command shares: the global options, the output, and the SDK client (made on first use,
so `--help`, completion and input errors never need a configured API)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the SDK is imported on first use: --help and completion stay quick
    from roomcast_client import Client

from roomcast_cli.config import Connection, resolve_connection
from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.output import Output


@dataclass(frozen=True)
class GlobalOptions:
    url: str | None = None
    api_key: str | None = None
    json_output: bool = False
    timeout_s: float = 30.0


class Session:
    def __init__(self, options: GlobalOptions, json_output: bool) -> None:
        self.options = options
        self.output = Output(json_output or options.json_output)

    @property
    def json_mode(self) -> bool:
        return self.output.json_mode

    @cached_property
    def connection(self) -> Connection:
        return resolve_connection(self.options.url, self.options.api_key, os.environ, Path.cwd())

    @cached_property
    def client(self) -> Client:
        from roomcast_client import Client

        connection = self.connection
        return Client(
            base_url=connection.api_url, api_key=connection.api_key, timeout_s=self.options.timeout_s
        )


# The session of the running command, for main()'s error report (JSON or text, the URL it tried).
_current: list[Session] = []


def forget_sessions() -> None:
    """A new command line starts (run() called again in one process, as tests do)."""
    _current.clear()


def current_session() -> Session | None:
    return _current[-1] if _current else None


def session_of(context: typer.Context, json_output: bool) -> Session:
    """The command's session: the root's options (``roomcast --json …``) and its own ``--json``."""
    root = context.find_root()
    options = root.obj if isinstance(root.obj, GlobalOptions) else GlobalOptions()
    session = Session(options, json_output)
    _current.append(session)
    return session


def confirm(session: Session, question: str, yes: bool) -> None:
    """Ask before a destructive action; without a terminal to ask on, ``--yes`` is required."""
    if yes:
        return
    if not (os.isatty(0) and session.output.console.is_terminal):
        raise CliError(f"{question} Pass --yes to confirm (no terminal to ask on).", ExitCode.USAGE)
    if not typer.confirm(question, default=False, err=True):
        raise CliError("Cancelled: nothing was changed.", ExitCode.USAGE)
