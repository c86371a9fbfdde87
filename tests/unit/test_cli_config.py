"""The CLI finds the API and its key: flags, then the environment, then a running local stack's
state file (found like git finds .git, read by the SDK's roomcast_client.settings, which
Client() uses too: tests/unit/test_sdk_client.py), and says clearly when nothing is configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roomcast_cli import config
from roomcast_cli.config import ConfigurationError, resolve_connection
from roomcast_cli.exit_codes import ExitCode, exit_code_for_status
from roomcast_client import settings
from roomcast_client.settings import find_state_file, read_running_stack


def _state_file(folder: Path, pid: int, **fields: object) -> Path:
    path = folder / ".local" / "stack.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"apiUrl": "http://127.0.0.1:3999", "pid": pid, "apiKey": "rc_state", **fields})
    )
    return path


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_flags_win_over_the_environment_and_the_state_file(tmp_path: Path) -> None:
    # Given every source
    _state_file(tmp_path, os.getpid())
    environ = {"ROOMCAST_URL": "http://env:1", "ROOMCAST_API_KEY": "rc_env"}

    # When flags are given
    connection = resolve_connection("http://flag:2/", "rc_flag", environ, tmp_path)

    # Then the flags are used, the trailing slash dropped
    assert (connection.api_url, connection.api_key) == ("http://flag:2", "rc_flag")
    assert (connection.url_source, connection.key_source) == ("--url", "--api-key")


def test_the_environment_wins_over_the_state_file(tmp_path: Path) -> None:
    # Given
    _state_file(tmp_path, os.getpid())

    # When
    connection = resolve_connection(
        None, None, {"ROOMCAST_URL": "http://env:1", "ROOMCAST_API_KEY": "rc_env"}, tmp_path
    )

    # Then
    assert (connection.api_url, connection.api_key) == ("http://env:1", "rc_env")


def test_a_running_stack_is_found_from_a_subfolder_and_fills_what_is_missing(tmp_path: Path) -> None:
    # Given a state file at the project root, a live pid, and only the URL in the environment
    state = _state_file(tmp_path, os.getpid())
    subfolder = tmp_path / "a" / "b"
    subfolder.mkdir(parents=True)

    # When
    connection = resolve_connection(None, None, {"ROOMCAST_URL": "http://env:1"}, subfolder)

    # Then the URL comes from the environment and the key from the state file
    assert (connection.api_url, connection.api_key) == ("http://env:1", "rc_state")
    assert connection.key_source == str(state)


def test_roomcast_state_file_names_the_file_directly(tmp_path: Path) -> None:
    # Given a state file somewhere else than the folders above cwd
    elsewhere = tmp_path / "elsewhere"
    state = _state_file(elsewhere, os.getpid())
    cwd = tmp_path / "cwd"
    cwd.mkdir()

    # When
    found = find_state_file(cwd, {"ROOMCAST_STATE_FILE": str(state)})
    connection = resolve_connection(None, None, {"ROOMCAST_STATE_FILE": str(state)}, cwd)

    # Then
    assert found == state
    assert connection.api_url == "http://127.0.0.1:3999"


def test_a_state_file_whose_process_is_gone_is_ignored(tmp_path: Path) -> None:
    # Given a stale state file (its stack was killed)
    state = _state_file(tmp_path, _dead_pid())

    # When / Then
    assert read_running_stack(state) is None
    with pytest.raises(ConfigurationError):
        resolve_connection(None, None, {}, tmp_path)


@pytest.mark.parametrize(
    "content", ["not json", "[]", '{"apiUrl": "http://x", "pid": "12"}', '{"apiUrl": "http://x"}']
)
def test_a_broken_state_file_is_ignored(tmp_path: Path, content: str) -> None:
    # Given
    path = tmp_path / "stack.json"
    path.write_text(content)

    # When / Then
    assert read_running_stack(path) is None


def test_a_state_file_other_users_may_write_is_ignored(tmp_path: Path) -> None:
    # Given a live stack's state file anyone may write (it could name any URL for this user's key)
    state = _state_file(tmp_path, os.getpid())
    state.chmod(0o666)

    # When / Then
    assert read_running_stack(state) is None
    with pytest.raises(ConfigurationError):
        resolve_connection(None, None, {}, tmp_path)
    # and the stack's own file (owner-only) is read
    state.chmod(0o600)
    assert resolve_connection(None, None, {}, tmp_path).api_key == "rc_state"


def test_the_cli_names_the_sdks_variables_and_starts_without_the_sdk() -> None:
    # Given: the CLI repeats the SDK's names so that it need not import the SDK to start
    assert (config.URL_VARIABLE, config.API_KEY_VARIABLE, config.STATE_FILE_VARIABLE) == (
        settings.URL_VARIABLE,
        settings.API_KEY_VARIABLE,
        settings.STATE_FILE_VARIABLE,
    )

    # When: the command tree is imported in a fresh interpreter (what --help and completion load)
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, roomcast_cli.main; print('roomcast_client' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )

    # Then: the SDK (httpx, pydantic) is not loaded yet
    assert loaded.stdout.strip() == "False"


def test_nothing_configured_says_every_way_to_configure(tmp_path: Path) -> None:
    # Given no flag, no environment, no state file

    # When
    with pytest.raises(ConfigurationError) as raised:
        resolve_connection(None, None, {}, tmp_path)

    # Then the message names the flags, the variables and the local stack
    message = str(raised.value)
    for hint in ("--url", "--api-key", "ROOMCAST_URL", "ROOMCAST_API_KEY", "make run", "ROOMCAST_STATE_FILE"):
        assert hint in message


def test_a_missing_key_alone_is_named(tmp_path: Path) -> None:
    # When
    with pytest.raises(ConfigurationError) as raised:
        resolve_connection("http://flag:2", None, {}, tmp_path)

    # Then
    assert str(raised.value).startswith("No API key configured")


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, ExitCode.REFUSED),
        (404, ExitCode.REFUSED),
        (409, ExitCode.REFUSED),
        (422, ExitCode.REFUSED),
        (401, ExitCode.UNREACHABLE),
        (403, ExitCode.UNREACHABLE),
        (500, ExitCode.SERVER_ERROR),
        (503, ExitCode.SERVER_ERROR),
    ],
)
def test_each_http_status_has_its_documented_exit_code(status: int, code: ExitCode) -> None:
    assert exit_code_for_status(status) is code
