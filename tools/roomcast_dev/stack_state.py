"""``.local/stack.json``: where the running local stack answers (its API, the emulator, its
outputs and the local tenant's key), for the project's tools (``make demo``, ``make api-key``,
``make compact``) and the ``roomcast`` CLI, which finds it from the project's folders."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from roomcast_dev.local_aws import LOCAL_REGION
from roomcast_dev.template import PROJECT_ROOT

STATE_FILE = PROJECT_ROOT / ".local" / "stack.json"


def write_state(
    endpoint_url: str, api_url: str, outputs: dict[str, str], api_key: str | None, path: Path = STATE_FILE
) -> None:
    """Record this process's running stack; readable by its owner only, since it may hold the
    local tenant's API key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    state: dict[str, Any] = {
        "endpointUrl": endpoint_url,
        "region": LOCAL_REGION,
        "apiUrl": api_url,
        "pid": os.getpid(),
        "outputs": outputs,
    }
    if api_key is not None:
        state["apiKey"] = api_key
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(state, file, indent=2)


def read_state(path: Path = STATE_FILE) -> dict[str, Any] | None:
    """The running local stack's endpoints, or None when none is running."""
    if not path.exists():
        return None
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    try:
        os.kill(int(state["pid"]), 0)
    except (OSError, KeyError, ValueError):
        return None
    return state
