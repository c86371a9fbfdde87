"""Where the API is and which key to use: flags, then the environment, then a running local stack.

The local stack (`make run`) writes ``.local/stack.json`` (owner-only) while it runs, with its API
URL, its process id and the local tenant's API key. The CLI looks for that file in the current
folder and its parents, as git finds ``.git``, and ignores it when its process is gone.
``ROOMCAST_STATE_FILE`` names the file directly (tests, or a stack started elsewhere).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

URL_VARIABLE = "ROOMCAST_URL"
API_KEY_VARIABLE = "ROOMCAST_API_KEY"
STATE_FILE_VARIABLE = "ROOMCAST_STATE_FILE"
STATE_FILE_RELATIVE = Path(".local") / "stack.json"


class ConfigurationError(Exception):
    """Nothing says where the API is or which key to use (exit code 3)."""


@dataclass(frozen=True)
class Connection:
    """Where requests go, with which key, and where each came from (for messages)."""

    api_url: str
    api_key: str
    url_source: str  # "--url", "ROOMCAST_URL" or the state file's path
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


def read_running_stack(path: Path) -> dict[str, Any] | None:
    """The state file's content while its stack runs; None when it is missing, unreadable or stale."""
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


def resolve_connection(
    url_flag: str | None,
    api_key_flag: str | None,
    environ: Mapping[str, str],
    cwd: Path,
) -> Connection:
    """URL and key, each from the first of: its flag, its environment variable, a running local
    stack's state file. ConfigurationError names what is missing and how to give it."""
    url, url_source = _first((url_flag, "--url"), (environ.get(URL_VARIABLE), URL_VARIABLE))
    api_key, key_source = _first(
        (api_key_flag, "--api-key"), (environ.get(API_KEY_VARIABLE), API_KEY_VARIABLE)
    )
    if url is None or api_key is None:
        state_file = find_state_file(cwd, environ)
        state = read_running_stack(state_file) if state_file is not None else None
        if state is not None and state_file is not None:
            if url is None and isinstance(state.get("apiUrl"), str) and state["apiUrl"]:
                url, url_source = state["apiUrl"], str(state_file)
            if api_key is None and isinstance(state.get("apiKey"), str) and state["apiKey"]:
                api_key, key_source = state["apiKey"], str(state_file)
    missing = [name for name, value in (("API URL", url), ("API key", api_key)) if value is None]
    if url is None or api_key is None:
        raise ConfigurationError(
            f"No {' and no '.join(missing)} configured: pass --url and --api-key, set "
            f"{URL_VARIABLE} and {API_KEY_VARIABLE}, or start the local stack (make run) and run "
            f"roomcast from the project's folder (or point {STATE_FILE_VARIABLE} at its .local/stack.json)."
        )
    return Connection(url.rstrip("/"), api_key, url_source, key_source)


def _first(*candidates: tuple[str | None, str]) -> tuple[str | None, str]:
    for value, source in candidates:
        if value:
            return value, source
    return None, ""
