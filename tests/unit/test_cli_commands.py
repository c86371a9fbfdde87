"""Commands that make several SDK calls, driven through the entry point with a fake SDK client:
--all follows every page, a dead-letter range is replayed until none remains, a batch with a
refused message exits 1, and messages show --wait gives up with exit code 5."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from roomcast_cli import session
from roomcast_cli.main import run


@dataclass
class FakePage:
    items: list[dict[str, Any]]
    next_cursor: str | None


@dataclass
class FakeRooms:
    pages: dict[str | None, FakePage]
    cursors_read: list[str | None] = field(default_factory=list)

    def list(self, *, limit: int | None = None, cursor: str | None = None) -> FakePage:
        self.cursors_read.append(cursor)
        return self.pages[cursor]


@dataclass
class FakeDeadLetters:
    answers: list[dict[str, Any]]
    calls: list[dict[str, Any]] = field(default_factory=list)

    def replay(self, room_id: str, subscription_id: str, **window: Any) -> dict[str, Any]:
        self.calls.append(window)
        return self.answers[len(self.calls) - 1]


@dataclass
class FakeMessages:
    batch_answer: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)

    def publish_batch(self, room_id: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return self.batch_answer

    def get(self, room_id: str, message_id: str) -> dict[str, Any]:
        return self.status


@dataclass
class FakeClient:
    rooms: FakeRooms = field(default_factory=lambda: FakeRooms({}))
    dead_letters: FakeDeadLetters = field(default_factory=lambda: FakeDeadLetters([]))
    messages: FakeMessages = field(default_factory=FakeMessages)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeClient:
    client = FakeClient()
    monkeypatch.setattr(session.Session, "client", property(lambda _self: client))
    monkeypatch.setenv("ROOMCAST_URL", "http://api.test")
    monkeypatch.setenv("ROOMCAST_API_KEY", "rc_test")
    monkeypatch.chdir(tmp_path)
    return client


def _room(number: int) -> dict[str, Any]:
    return {"id": f"room_{number}", "name": "orders"}


def test_all_follows_every_page(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    # Given three pages
    fake.rooms = FakeRooms(
        {None: FakePage([_room(1)], "c2"), "c2": FakePage([_room(2)], "c3"), "c3": FakePage([_room(3)], None)}
    )

    # When
    code = run(["rooms", "list", "--all", "--json"])

    # Then
    assert code == 0
    assert fake.rooms.cursors_read == [None, "c2", "c3"]
    assert json.loads(capsys.readouterr().out) == {
        "rooms": [_room(1), _room(2), _room(3)],
        "nextCursor": None,
    }


def test_without_all_one_page_and_its_cursor(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    fake.rooms = FakeRooms({None: FakePage([_room(1)], "c2")})
    assert run(["rooms", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"rooms": [_room(1)], "nextCursor": "c2"}


def test_a_range_is_replayed_until_none_remains(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    # Given the API replays one letter per call, twice with more remaining
    fake.dead_letters = FakeDeadLetters(
        [
            {"replayed": ["msg_1"], "notFound": [], "alreadyReplaying": [], "remaining": True},
            {"replayed": ["msg_2"], "notFound": [], "alreadyReplaying": ["msg_9"], "remaining": True},
            {"replayed": ["msg_3"], "notFound": [], "alreadyReplaying": [], "remaining": False},
        ]
    )

    # When
    code = run(["dead-letters", "replay", "room_1", "sub_1", "--since", "2026-11-22T10:00:00Z", "--json"])

    # Then every call had the same window and the answers are merged
    assert code == 0
    assert (
        fake.dead_letters.calls
        == [{"message_ids": None, "since": "2026-11-22T10:00:00.000Z", "until": None}] * 3
    )
    assert json.loads(capsys.readouterr().out) == {
        "replayed": ["msg_1", "msg_2", "msg_3"],
        "notFound": [],
        "alreadyReplaying": ["msg_9"],
        "remaining": False,
    }


def test_a_range_stops_when_a_call_replays_nothing(fake: FakeClient) -> None:
    # Given letters remain but another replay holds them all
    stuck = {"replayed": [], "notFound": [], "alreadyReplaying": ["msg_1"], "remaining": True}
    fake.dead_letters = FakeDeadLetters([stuck, stuck])

    # When / Then one call, no endless loop
    assert run(["dead-letters", "replay", "room_1", "sub_1", "--all", "--json"]) == 0
    assert len(fake.dead_letters.calls) == 1


def test_a_batch_with_a_refused_message_prints_the_results_and_exits_1(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given
    fake.messages.batch_answer = {
        "results": [
            {
                "status": 202,
                "messageId": "msg_1",
                "correlationId": "c",
                "destinations": [],
                "publishedAt": "t",
            },
            {"status": 422, "error": {"code": "unroutable", "message": "no such event type", "details": []}},
        ],
        "failedCount": 1,
    }

    # When
    code = run(["publish", "room_1", "--batch", '[{"eventType": "a"}, {"eventType": "b"}]'])

    # Then
    assert code == 1
    out = capsys.readouterr().out
    assert "unroutable: no such event type" in out
    assert "1 refused of 2" in out


def test_a_batch_must_be_a_list_of_objects(fake: FakeClient, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["publish", "room_1", "--batch", '{"eventType": "a"}']) == 2
    assert "must be a list of message objects" in capsys.readouterr().err


def test_waiting_for_deliveries_that_do_not_end_exits_5(
    fake: FakeClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a delivery that stays retrying
    fake.messages.status = {"messageId": "msg_1", "deliveries": [{"status": "retrying"}]}

    # When
    code = run(["messages", "show", "room_1", "msg_1", "--wait", "--timeout", "0"])

    # Then
    assert code == 5
    assert "had not ended after 0 s: retrying 1" in capsys.readouterr().err
