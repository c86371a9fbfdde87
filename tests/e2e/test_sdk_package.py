"""The SDK installs on its own: a wheel built from clients/python, installed into a fresh venv
with only its declared dependencies (from PyPI), imports and works there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UV = ROOT / ".tools" / "uv" / "bin" / "uv"

SMOKE = """
import httpx, roomcast_client as rc
answer = {"results": [], "failedCount": 0}
http = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200, json=answer)))
client = rc.Client("https://api.example", "rc_key", http=http)
print(rc.__version__, client.messages.publish_batch("room_1", []).failed_count)
"""


def run(*command: str | Path) -> str:
    done = subprocess.run(  # noqa: S603 - our own uv and python, fixed arguments
        [str(part) for part in command], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_wheel_installs_into_a_fresh_venv_and_works(tmp_path: Path) -> None:
    # Given a wheel of the SDK
    run(
        UV,
        "build",
        "--quiet",
        "--python",
        sys.executable,
        "--wheel",
        ROOT / "clients" / "python",
        "-o",
        tmp_path / "dist",
    )
    (wheel,) = (tmp_path / "dist").glob("roomcast_client-*.whl")

    # When it is installed alone into a new venv
    run(UV, "venv", "--quiet", tmp_path / "venv", "--python", sys.executable)
    python = tmp_path / "venv" / "bin" / "python"
    run(UV, "pip", "install", "--quiet", "--python", python, wheel)

    # Then it imports from there (not from this checkout) and runs
    location = run(python, "-c", "import roomcast_client; print(roomcast_client.__file__)")
    assert location.startswith(str(tmp_path))
    assert run(python, "-c", SMOKE).split() == ["0.1.0", "0"]
    assert "py.typed" in run(
        python,
        "-c",
        "import importlib.resources as r; print([p.name for p in r.files('roomcast_client').iterdir()])",
    )
