"""The exit codes scripts can rely on (docs/cli.md lists them)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    REFUSED = 1  # the API refused the request: a 4xx other than 401/403 (not found, invalid, conflict)
    USAGE = 2  # bad command line or bad input caught before any request (click uses 2 as well)
    UNREACHABLE = 3  # nothing configured, the API cannot be reached, or it refused the key (401/403)
    SERVER_ERROR = 4  # the API failed (5xx) or answered something that is not the API's
    TIMED_OUT = 5  # a wait the command was asked for ran out (messages show --wait)
    INTERRUPTED = 130  # Ctrl-C during a command other than `listen`


def exit_code_for_status(status: int) -> ExitCode:
    """The exit code of an API answer with this HTTP status."""
    if status in (401, 403):
        return ExitCode.UNREACHABLE
    if 400 <= status < 500:
        return ExitCode.REFUSED
    return ExitCode.SERVER_ERROR


class CliError(Exception):
    """A failure the CLI explains in one message on stderr and ends with ``exit_code``."""

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
