"""The headless browser the console's tests drive, found or provided before `make test` does
anything else (issue 25). Standard library only: `make test` runs this with the project's Python
before the virtual environment exists, so a machine that cannot have a browser hears so within
seconds, not after ten minutes of tests.

In order: a browser already there (``ROOMCAST_CHROMIUM``, Debian's ``chromium`` on PATH, or
Playwright's own download); else Debian's package when this user may install it (root with
apt-get); else Playwright's download when its host answers (`make test` runs `playwright install`
once the environment exists); else one line saying what to install, and exit status 1.

    python tools/roomcast_dev/browser.py            # check or provide; prints the decision
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from urllib.parse import urlsplit

# Where `playwright install chromium` puts its builds, newest first by name.
_PLAYWRIGHT_BUILDS = ("chromium_headless_shell-*/chrome-*/headless_shell", "chromium-*/chrome-*/chrome")
_REACH_SECONDS = 3.0
HOW_TO_INSTALL = (
    "the console's tests need a headless chromium and none could be provided here: install "
    "Debian's package (sudo apt-get install chromium) or Playwright's "
    "(.venv/bin/python -m playwright install chromium), then run make test again"
)


class Action(Enum):
    USE = "use the browser found"
    APT = "install Debian's chromium"
    DOWNLOAD = "download Playwright's chromium once the environment exists"
    STOP = "stop: nothing can be installed here"


@dataclass(frozen=True)
class Machine:
    """What the decision depends on."""

    found: str | None
    may_install_packages: bool  # root, with apt-get
    playwright_host_reachable: bool


def decide(machine: Machine) -> Action:
    if machine.found is not None:
        return Action.USE
    if machine.may_install_packages:
        return Action.APT
    if machine.playwright_host_reachable:
        return Action.DOWNLOAD
    return Action.STOP


def find_browser(environ: Mapping[str, str] | None = None) -> str | None:
    """The chromium to drive: ``ROOMCAST_CHROMIUM``, Debian's on PATH, or Playwright's newest."""
    env = os.environ if environ is None else environ
    if chosen := env.get("ROOMCAST_CHROMIUM"):
        return chosen if Path(chosen).is_file() else None
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name, path=env.get("PATH")):
            return found
    builds = Path(env.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    for pattern in _PLAYWRIGHT_BUILDS:
        if matches := sorted(glob.glob(str(builds / pattern)), reverse=True):
            return matches[0]
    return None


def _download_host(environ: Mapping[str, str]) -> tuple[str, int]:
    """Where Playwright downloads from: its own PLAYWRIGHT_DOWNLOAD_HOST when set."""
    url = urlsplit(environ.get("PLAYWRIGHT_DOWNLOAD_HOST") or "https://cdn.playwright.dev")
    return url.hostname or "", url.port or (443 if url.scheme == "https" else 80)


def _reachable(host: tuple[str, int]) -> bool:
    try:
        socket.create_connection(host, timeout=_REACH_SECONDS).close()
    except OSError:
        return False
    return True


def main() -> int:
    found = find_browser()
    may_install = hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None
    reachable = found is None and not may_install and _reachable(_download_host(os.environ))
    action = decide(Machine(found, may_install, reachable))
    if action is Action.APT:
        print("make test: installing Debian's chromium for the console's tests (apt-get)", file=sys.stderr)
        for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)  # noqa: S603 - fixed arguments
        return 0 if find_browser() else _stop()
    if action is Action.DOWNLOAD:
        print("download")  # read by the Makefile: `playwright install chromium` once the venv exists
    if action is Action.STOP:
        return _stop()
    return 0


def _stop() -> int:
    print(f"error: {HOW_TO_INSTALL}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
