"""Where the API is and which key to use: what the caller gave, then the environment
(``ROOMCAST_URL``, ``ROOMCAST_API_KEY``), then a running local stack.

The local stack (``make run`` in a roomcast checkout) writes ``.local/stack.json`` (owner-only)
while it runs, with its API URL, its process id and the local tenant's API key. It is looked for in
the current folder and each parent, as git finds ``.git``, or named by ``ROOMCAST_STATE_FILE``; it
is ignored once its process is gone, and when it is not this user's own (someone else's file, or
one anyone may write, could point this user's key at another URL). The SDK's clients and the
``roomcast`` CLI find the API this one way (docs/sdk.md, docs/cli.md).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

URL_VARIABLE = "ROOMCAST_URL"
API_KEY_VARIABLE = "ROOMCAST_API_KEY"
STATE_FILE_VARIABLE = "ROOMCAST_STATE_FILE"
STATE_FILE_RELATIVE = Path(".local") / "stack.json"


@dataclass(frozen=True)
class Settings:
    """The API's URL and key, each with where it came from: the argument's name, the variable's,
    or the state file's path (None and ``""`` when nothing gave it)."""

    api_url: str | None
    api_key: str | None
    url_source: str
    key_source: str


def find_state_file(start: Path, environ: Mapping[str, str]) -> Path | None:
    """``ROOMCAST_STATE_FILE`` when set, else the nearest ``.local/stack.json`` from ``start`` up."""
    named = environ.get(STATE_FILE_VARIABLE)
    if named:
        return Path(named)
    for folder in (start, *start.parents):
        candidate = folder / STATE_FILE_RELATIVE
        if candidate.is_file():
            return candidate
    return None


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return True


def _own_file(path: Path) -> bool:
    """The file is this user's, and no other user may write it."""
    try:
        status = path.stat()
    except OSError:
        return False
    return status.st_uid == os.getuid() and not status.st_mode & stat.S_IWOTH


def read_running_stack(path: Path) -> dict[str, Any] | None:
    """The state file's content while its stack runs; None when it is missing, unreadable, stale
    or not this user's own. Never on Windows: the local stack runs on Linux and macOS, and a
    process is not probed there as it is here (``os.kill(pid, 0)`` would send it Ctrl-C)."""
    if os.name == "nt" or not _own_file(path):
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict):
        return None
    pid = state.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or not _process_alive(pid):
        return None
    return state


def resolve_settings(
    url: str | None,
    api_key: str | None,
    environ: Mapping[str, str],
    cwd: Path | None,
    *,
    url_given_as: str = "base_url",
    key_given_as: str = "api_key",
) -> Settings:
    """The URL and the key, each from the first of: what the caller was given (its source named
    ``url_given_as``/``key_given_as``), its environment variable, a running local stack's state
    file, found from ``cwd`` (None: only ``ROOMCAST_STATE_FILE`` names one). Empty values count as
    not given. The state file is read only when the first two leave something missing."""
    url, url_source = _first((url, url_given_as), (environ.get(URL_VARIABLE), URL_VARIABLE))
    api_key, key_source = _first((api_key, key_given_as), (environ.get(API_KEY_VARIABLE), API_KEY_VARIABLE))
    if url is None or api_key is None:
        state_file = find_state_file(cwd, environ) if cwd is not None else _named_state_file(environ)
        state = read_running_stack(state_file) if state_file is not None else None
        if state is not None and state_file is not None:
            if url is None and isinstance(state.get("apiUrl"), str) and state["apiUrl"]:
                url, url_source = state["apiUrl"], str(state_file)
            if api_key is None and isinstance(state.get("apiKey"), str) and state["apiKey"]:
                api_key, key_source = state["apiKey"], str(state_file)
    return Settings(url, api_key, url_source, key_source)


def current_folder() -> Path | None:
    """The process's working folder; None when it was deleted under it."""
    try:
        return Path.cwd()
    except OSError:
        return None


def _named_state_file(environ: Mapping[str, str]) -> Path | None:
    named = environ.get(STATE_FILE_VARIABLE)
    return Path(named) if named else None


def _first(*candidates: tuple[str | None, str]) -> tuple[str | None, str]:
    for value, source in candidates:
        if value:
            return value, source
    return None, ""
