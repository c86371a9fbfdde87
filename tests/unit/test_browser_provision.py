"""Finding or providing the console tests' browser before `make test` does anything else
(roomcast_dev.browser): the decision, the search, and the one line a machine without one gets."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from roomcast_dev import browser
from roomcast_dev.browser import Action, Machine, decide, find_browser

SCRIPT = Path(browser.__file__)


@pytest.mark.parametrize(
    ("machine", "action"),
    [
        (Machine("/usr/bin/chromium", may_install_packages=True, playwright_host_reachable=True), Action.USE),
        (Machine(None, may_install_packages=True, playwright_host_reachable=True), Action.APT),
        (Machine(None, may_install_packages=False, playwright_host_reachable=True), Action.DOWNLOAD),
        (Machine(None, may_install_packages=False, playwright_host_reachable=False), Action.STOP),
    ],
)
def test_a_found_browser_comes_first_then_the_package_then_the_download(
    machine: Machine, action: Action
) -> None:
    assert decide(machine) is action


def test_playwright_s_newest_build_is_found_when_no_chromium_is_on_path(tmp_path: Path) -> None:
    # Given: two Playwright builds, and a PATH without chromium
    for build in ("chromium_headless_shell-1200", "chromium_headless_shell-1255"):
        shell = tmp_path / build / "chrome-linux64" / "headless_shell"
        shell.parent.mkdir(parents=True)
        shell.write_text("")

    # When
    found = find_browser({"PATH": str(tmp_path / "bin"), "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path)})

    # Then
    assert found == str(tmp_path / "chromium_headless_shell-1255" / "chrome-linux64" / "headless_shell")


def test_a_chosen_browser_that_does_not_exist_is_not_found(tmp_path: Path) -> None:
    assert find_browser({"ROOMCAST_CHROMIUM": str(tmp_path / "nothing"), "PATH": "/usr/bin"}) is None


def test_a_machine_that_cannot_have_a_browser_stops_within_seconds_with_one_line(tmp_path: Path) -> None:
    # Given: no browser anywhere, no apt-get (an empty PATH), and Playwright's download host
    # refusing connections (its own PLAYWRIGHT_DOWNLOAD_HOST, pointed at a closed port)
    environment = {
        "PATH": str(tmp_path),
        "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path),
        "HOME": str(tmp_path),
        "PLAYWRIGHT_DOWNLOAD_HOST": "http://127.0.0.1:9",
    }

    # When
    started = time.monotonic()
    completed = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, str(SCRIPT)],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )

    # Then
    assert time.monotonic() - started < 30
    assert completed.returncode == 1
    assert completed.stderr.strip().count("\n") == 0
    assert "apt-get install chromium" in completed.stderr
