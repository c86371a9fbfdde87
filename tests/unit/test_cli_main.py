"""The CLI's entry point without a stack: bad input, usage errors and missing configuration end in
their documented exit codes, with the message on stderr; shell completion answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roomcast_cli.main import run


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ROOMCAST_URL", "ROOMCAST_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ROOMCAST_STATE_FILE", str(tmp_path / "none.json"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("unconfigured")
def test_invalid_json_exits_2_before_any_configuration_is_needed(capsys: pytest.CaptureFixture[str]) -> None:
    # When
    code = run(["publish", "room_1", "{order: 1}", "-t", "order.created"])

    # Then
    assert code == 2
    assert "the payload is not valid JSON" in capsys.readouterr().err


@pytest.mark.usefixtures("unconfigured")
def test_nothing_configured_exits_3_with_json_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    # When
    code = run(["rooms", "list", "--json"])

    # Then
    assert code == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert json.loads(captured.err)["error"]["code"] == "unreachable"


@pytest.mark.usefixtures("unconfigured")
def test_usage_errors_exit_2_and_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["rooms", "list", "--limit", "500"]) == 2
    assert run(["subscriptions", "create", "room_1"]) == 2  # neither --push-url nor --pull
    assert "Give either --push-url URL" in capsys.readouterr().err
    assert run(["dead-letters", "replay", "room_1", "sub_1"]) == 2  # which letters?
    assert run(["--help"]) == 0


def test_shell_completion_completes_commands_and_choices(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given bash asking to complete "roomcast dead" and a --status value
    monkeypatch.setenv("_ROOMCAST_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "roomcast dead")
    monkeypatch.setenv("COMP_CWORD", "1")

    # When / Then
    assert run(["dead"]) == 0
    assert capsys.readouterr().out.split() == ["dead-letters"]
    monkeypatch.setenv("COMP_WORDS", "roomcast deliveries list room_1 sub_1 --status d")
    monkeypatch.setenv("COMP_CWORD", "6")
    assert run([]) == 0
    assert capsys.readouterr().out.split() == ["delivered", "dead"]
