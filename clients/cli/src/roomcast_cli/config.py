"""Where the API is and which key to use: flags, then the environment, then a running local stack.

The local stack (`make run`) writes ``.local/stack.json`` (owner-only) while it runs, with its API
URL, its process id and the local tenant's API key. The CLI looks for that file in the current
folder and its parents, as git finds ``.git``, and ignores it when its process is gone.
``ROOMCAST_STATE_FILE`` names the file directly (tests, or a stack started elsewhere).

The lookup is the SDK's (``roomcast_client.settings``), so ``roomcast`` and ``Client()`` find the
same stack; it is imported when a command first needs the connection, as the rest of the SDK is
(session.py), so ``--help`` and completion stay quick. This module adds the flags and the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# The SDK's names (roomcast_client.settings), repeated so the CLI starts without importing the SDK.
URL_VARIABLE = "ROOMCAST_URL"
API_KEY_VARIABLE = "ROOMCAST_API_KEY"
STATE_FILE_VARIABLE = "ROOMCAST_STATE_FILE"


class ConfigurationError(Exception):
    """Nothing says where the API is or which key to use (exit code 3)."""


@dataclass(frozen=True)
class Connection:
    """Where requests go, with which key, and where each came from (for messages)."""

    api_url: str
    api_key: str
    url_source: str  # "--url", "ROOMCAST_URL" or the state file's path
    key_source: str


def resolve_connection(
    url_flag: str | None,
    api_key_flag: str | None,
    environ: Mapping[str, str],
    cwd: Path,
) -> Connection:
    """URL and key, each from the first of: its flag, its environment variable, a running local
    stack's state file. ConfigurationError names what is missing and how to give it."""
    from roomcast_client.settings import resolve_settings

    settings = resolve_settings(
        url_flag, api_key_flag, environ, cwd, url_given_as="--url", key_given_as="--api-key"
    )
    url, api_key = settings.api_url, settings.api_key
    missing = [name for name, value in (("API URL", url), ("API key", api_key)) if value is None]
    if url is None or api_key is None:
        raise ConfigurationError(
            f"No {' and no '.join(missing)} configured: pass --url and --api-key, set "
            f"{URL_VARIABLE} and {API_KEY_VARIABLE}, or start the local stack (make run) and run "
            f"roomcast from the project's folder (or point {STATE_FILE_VARIABLE} at its .local/stack.json)."
        )
    return Connection(url.rstrip("/"), api_key, settings.url_source, settings.key_source)
