"""Lambda's tumbling windows and batching window on a DynamoDB stream, locally (roomcast_dev.stream_sources
and roomcast_dev.stream_windows): the state carried from one invocation of a window to the next, the
final invocation after the window's end, retries with the state as it was, and the batching window.

The poller is driven round by round (``poll_once``) against fakes of the stream, the table and the
function, with a clock the test moves: nothing waits for real."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from roomcast_dev.functions import FunctionError
from roomcast_dev.stream_sources import StreamPoller
from roomcast_dev.stream_windows import Window, answer_state, utc_timestamp
from roomcast_dev.template import StreamTrigger, read_stack

STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/2024"
# 22:13:30 UTC: in the minute-long window from 22:13:00 to 22:14:00.
T0 = 1_700_000_010.0
WINDOW_START, WINDOW_END = 1_699_999_980.0, 1_700_000_040.0


def _trigger(
    window: float = 60, batching: float = 0, batch_size: int = 10, report: bool = True, retries: int = -1
) -> StreamTrigger:
    return StreamTrigger("MetricsFunction", "Table", batch_size, (), report, retries, window, batching)


class _Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class _Tables:
    def describe_table(self, TableName: str) -> dict[str, Any]:
        return {"Table": {"LatestStreamArn": STREAM_ARN}}


class _Stream:
    """Shards whose records the test adds (``put``); a read gets all those not read yet."""

    def __init__(self, *shard_ids: str) -> None:
        self.unread: dict[str, list[dict[str, Any]]] = {
            shard_id: [] for shard_id in shard_ids or ("shard-1",)
        }

    def put(self, *sequence_numbers: str, shard_id: str = "shard-1") -> None:
        self.unread[shard_id].extend(
            {"eventID": n, "eventName": "INSERT", "dynamodb": {"SequenceNumber": n}} for n in sequence_numbers
        )

    def describe_stream(self, StreamArn: str) -> dict[str, Any]:
        return {"StreamDescription": {"Shards": [{"ShardId": shard_id} for shard_id in self.unread]}}

    def get_shard_iterator(self, StreamArn: str, ShardId: str, **_: Any) -> dict[str, Any]:
        return {"ShardIterator": ShardId}

    def get_records(self, ShardIterator: str, Limit: int) -> dict[str, Any]:
        records, self.unread[ShardIterator] = self.unread[ShardIterator], []
        return {"Records": records, "NextShardIterator": ShardIterator}


Answer = Callable[[dict[str, Any]], Any]


def counting(event: dict[str, Any]) -> Any:
    """An aggregating function: the state counts the window's records."""
    return {"state": {"count": str(int(event["state"].get("count", "0")) + len(event["Records"]))}}


class _Function:
    """Records every event it gets; answers with the next scripted answer (an exception is raised),
    then as ``counting`` does."""

    def __init__(self, *script: Answer | Exception) -> None:
        self.events: list[dict[str, Any]] = []
        self._script = list(script)

    def __call__(self, function_id: str, event: dict[str, Any]) -> Any:
        self.events.append(copy.deepcopy(event))
        step = self._script.pop(0) if self._script else counting
        if isinstance(step, Exception):
            raise step
        return step(event)

    def sequence_numbers(self, index: int) -> list[str]:
        return [r["dynamodb"]["SequenceNumber"] for r in self.events[index]["Records"]]


def _poller(trigger: StreamTrigger, function: _Function, clock: _Clock) -> StreamPoller:
    return StreamPoller(
        trigger, "table", "us-east-1", lambda name: None, function, clock=clock, sleep=lambda s: None
    )


def test_the_state_an_invocation_answers_is_the_next_ones_in_the_window() -> None:
    # Given: a windowed trigger and records coming in two reads within one window
    stream, function, clock = _Stream(), _Function(), _Clock()
    poller = _poller(_trigger(), function, clock)
    stream.put("1", "2")
    poller.poll_once(_Tables(), stream)
    clock.now += 20
    stream.put("3")

    # When
    poller.poll_once(_Tables(), stream)

    # Then: the first invocation starts from {}, the second gets the first one's answer
    assert [event["state"] for event in function.events] == [{}, {"count": "2"}]
    assert function.sequence_numbers(1) == ["3"]
    for event in function.events:
        assert event["window"] == {"start": "2023-11-14T22:13:00Z", "end": "2023-11-14T22:14:00Z"}
        assert event["shardId"] == "shard-1"
        assert event["eventSourceARN"] == STREAM_ARN
        assert event["isFinalInvokeForWindow"] is False
        assert event["isWindowTerminatedEarly"] is False


def test_after_the_window_ends_a_final_invocation_hands_over_its_state_then_a_new_window_starts() -> None:
    # Given: a window that got three records
    stream, function, clock = _Stream(), _Function(), _Clock()
    poller = _poller(_trigger(), function, clock)
    stream.put("1", "2", "3")
    poller.poll_once(_Tables(), stream)
    clock.now = WINDOW_END - 0.01
    assert poller.poll_once(_Tables(), stream) is False  # not over yet: nothing to do

    # When: its end passes, while a record waits on the stream
    clock.now = WINDOW_END
    stream.put("4")
    assert poller.poll_once(_Tables(), stream) is True

    # Then: the final invocation has no records (all were delivered) and the window's state
    final = function.events[-1]
    assert final["Records"] == []
    assert final["isFinalInvokeForWindow"] is True
    assert final["state"] == {"count": "3"}
    assert final["window"] == {"start": "2023-11-14T22:13:00Z", "end": "2023-11-14T22:14:00Z"}

    # When: the next round reads the record that came after the end
    poller.poll_once(_Tables(), stream)

    # Then: it belongs to the next window, which starts with an empty state
    event = function.events[-1]
    assert function.sequence_numbers(-1) == ["4"]
    assert event["state"] == {}
    assert event["isFinalInvokeForWindow"] is False
    assert event["window"] == {"start": "2023-11-14T22:14:00Z", "end": "2023-11-14T22:15:00Z"}
    assert len(function.events) == 3


def test_the_final_invocation_carries_the_windows_records_not_yet_delivered() -> None:
    # Given: records waiting for a batching window longer than what is left of the tumbling window
    stream, function, clock = _Stream(), _Function(), _Clock()
    poller = _poller(_trigger(batching=300), function, clock)
    stream.put("1", "2")
    poller.poll_once(_Tables(), stream)
    assert function.events == []

    # When: the tumbling window ends
    clock.now = WINDOW_END + 1
    poller.poll_once(_Tables(), stream)

    # Then: the final invocation is not held back by the batching window, and has them
    assert len(function.events) == 1
    assert function.sequence_numbers(0) == ["1", "2"]
    assert function.events[0]["isFinalInvokeForWindow"] is True
    assert function.events[0]["state"] == {}


def test_the_final_invocation_respects_the_batch_size() -> None:
    # Given: more records pending at the window's end than a batch holds (its first batch failed)
    stream, function, clock = _Stream(), _Function(FunctionError("Crashed", "worker died")), _Clock()
    poller = _poller(_trigger(batch_size=2), function, clock)
    stream.put("1", "2", "3")
    poller.poll_once(_Tables(), stream)

    # When: the window ends
    clock.now = WINDOW_END
    poller.poll_once(_Tables(), stream)
    poller.poll_once(_Tables(), stream)

    # Then: a full batch first, then the rest in the final invocation with the state so far
    assert [function.sequence_numbers(i) for i in (1, 2)] == [["1", "2"], ["3"]]
    assert [event["isFinalInvokeForWindow"] for event in function.events] == [False, False, True]
    assert function.events[2]["state"] == {"count": "2"}


def _missing_state(event: dict[str, Any]) -> Any:
    return {"batchItemFailures": []}


def _no_answer(event: dict[str, Any]) -> Any:
    return None


def _state_not_an_object(event: dict[str, Any]) -> Any:
    return {"state": "7"}


@pytest.mark.parametrize(
    "failure",
    [FunctionError("Crashed", "worker died"), _missing_state, _no_answer, _state_not_an_object],
    ids=["function-error", "answer-without-state", "no-answer", "state-not-an-object"],
)
def test_a_failed_invocation_is_retried_with_the_state_from_before(failure: Answer | Exception) -> None:
    # Given: a window with a state, then an invocation that fails
    stream, function, clock = _Stream(), _Function(counting, failure), _Clock()
    poller = _poller(_trigger(), function, clock)
    stream.put("1")
    poller.poll_once(_Tables(), stream)
    stream.put("2", "3")
    poller.poll_once(_Tables(), stream)

    # When: the next round
    poller.poll_once(_Tables(), stream)

    # Then: the same batch again, with the state the failed invocation got
    assert function.sequence_numbers(2) == function.sequence_numbers(1) == ["2", "3"]
    assert function.events[2]["state"] == function.events[1]["state"] == {"count": "1"}
    assert "failed attempts of the current batch 0" in poller.state()

    # And: the final invocation has the state of the retry that succeeded
    clock.now = WINDOW_END
    poller.poll_once(_Tables(), stream)
    assert function.events[3]["isFinalInvokeForWindow"] is True
    assert function.events[3]["state"] == {"count": "3"}


def test_a_reported_item_failure_is_retried_from_that_record_with_the_state_from_before() -> None:
    # Given: an invocation answering a new state but reporting its second record failed
    def second_failed(event: dict[str, Any]) -> Any:
        return {"state": {"count": "99"}, "batchItemFailures": [{"itemIdentifier": "2"}]}

    stream, function, clock = _Stream(), _Function(counting, second_failed), _Clock()
    poller = _poller(_trigger(), function, clock)
    stream.put("1")
    poller.poll_once(_Tables(), stream)
    stream.put("2", "3", "4")
    poller.poll_once(_Tables(), stream)

    # When
    poller.poll_once(_Tables(), stream)

    # Then: from the failed record on, with the state as it was before the failed invocation
    assert function.sequence_numbers(2) == ["2", "3", "4"]
    assert function.events[2]["state"] == {"count": "1"}


def test_a_failed_final_invocation_is_retried_until_it_succeeds_then_the_state_is_dropped() -> None:
    # Given: a window whose final invocation fails twice
    crash = FunctionError("Crashed", "worker died")
    stream, function, clock = _Stream(), _Function(counting, crash, _missing_state), _Clock()
    poller = _poller(_trigger(), function, clock)
    stream.put("1", "2")
    poller.poll_once(_Tables(), stream)
    clock.now = WINDOW_END

    # When
    for _ in range(3):
        poller.poll_once(_Tables(), stream)
    assert poller.poll_once(_Tables(), stream) is False  # done: nothing more to do

    # Then: the same final invocation three times, the last one succeeding
    finals = function.events[1:]
    assert len(finals) == 3
    assert all(event == finals[0] for event in finals)
    assert finals[0]["isFinalInvokeForWindow"] is True
    assert finals[0]["state"] == {"count": "2"}

    # And: the next record opens a new window with a fresh state
    stream.put("3")
    poller.poll_once(_Tables(), stream)
    assert function.events[-1]["state"] == {}
    assert function.events[-1]["isFinalInvokeForWindow"] is False


def test_a_final_invocation_given_up_on_closes_the_window() -> None:
    # Given: one retry allowed, and a final invocation failing on both attempts
    crash = FunctionError("Crashed", "worker died")
    stream, function, clock = _Stream(), _Function(counting, crash, crash), _Clock()
    poller = _poller(_trigger(retries=1), function, clock)
    stream.put("1")
    poller.poll_once(_Tables(), stream)
    clock.now = WINDOW_END

    # When
    poller.poll_once(_Tables(), stream)
    poller.poll_once(_Tables(), stream)

    # Then: no third attempt; the shard goes on with a new window
    assert poller.poll_once(_Tables(), stream) is False
    assert len(function.events) == 3
    stream.put("2")
    poller.poll_once(_Tables(), stream)
    assert function.events[-1]["state"] == {}


def test_each_shard_has_its_own_state_and_final_invocation() -> None:
    # Given: two shards, with records in both
    stream, function, clock = _Stream("shard-a", "shard-b"), _Function(), _Clock()
    poller = _poller(_trigger(), function, clock)
    stream.put("1", "2", shard_id="shard-a")
    stream.put("3", shard_id="shard-b")
    poller.poll_once(_Tables(), stream)

    # When: the window ends
    clock.now = WINDOW_END
    poller.poll_once(_Tables(), stream)

    # Then
    finals = {
        event["shardId"]: event["state"] for event in function.events if event["isFinalInvokeForWindow"]
    }
    assert finals == {"shard-a": {"count": "2"}, "shard-b": {"count": "1"}}
    assert [event["state"] for event in function.events[:2]] == [{}, {}]


def test_a_trigger_without_a_window_gets_records_only() -> None:
    # Given: the outbox's kind of trigger (no tumbling window)
    stream, function, clock = _Stream(), _Function(lambda event: None), _Clock()
    poller = _poller(_trigger(window=0), function, clock)
    stream.put("1", "2")

    # When: it reads, and long after
    poller.poll_once(_Tables(), stream)
    clock.now += 3600
    assert poller.poll_once(_Tables(), stream) is False

    # Then: one invocation, its event the records alone
    assert len(function.events) == 1
    assert set(function.events[0]) == {"Records"}
    assert function.sequence_numbers(0) == ["1", "2"]
    assert function.events[0]["Records"][0]["eventSourceARN"] == STREAM_ARN


def test_the_batching_window_waits_for_a_full_batch() -> None:
    # Given: a batch of 3, within a batching window of 5 s, and 2 records
    stream, function, clock = _Stream(), _Function(lambda event: None), _Clock()
    poller = _poller(_trigger(window=0, batching=5, batch_size=3), function, clock)
    stream.put("1", "2")
    poller.poll_once(_Tables(), stream)
    assert function.events == []

    # When: a third record comes a second later
    clock.now += 1
    stream.put("3")
    poller.poll_once(_Tables(), stream)

    # Then: the full batch is invoked at once
    assert [function.sequence_numbers(i) for i in range(len(function.events))] == [["1", "2", "3"]]


def test_the_batching_window_invokes_once_the_oldest_record_waited_it_out() -> None:
    # Given: a batching window of 5 s and two records read at different times
    stream, function, clock = _Stream(), _Function(), _Clock()
    poller = _poller(_trigger(batching=5, batch_size=10), function, clock)
    stream.put("1")
    poller.poll_once(_Tables(), stream)
    clock.now += 3
    stream.put("2")
    poller.poll_once(_Tables(), stream)

    # When / Then: not before the first record has waited 5 s
    clock.now += 1.99
    poller.poll_once(_Tables(), stream)
    assert function.events == []
    clock.now += 0.01
    poller.poll_once(_Tables(), stream)
    assert function.sequence_numbers(0) == ["1", "2"]
    assert function.events[0]["isFinalInvokeForWindow"] is False


def test_windows_are_aligned_to_the_wall_clock() -> None:
    # When / Then
    assert Window.around(T0, 60) == Window(start=WINDOW_START, end=WINDOW_END)
    assert Window.around(WINDOW_END, 60).start == WINDOW_END
    assert Window.around(T0, 300).start == 1_699_999_800.0  # 22:10:00
    assert utc_timestamp(WINDOW_START) == "2023-11-14T22:13:00Z"
    assert not Window.around(T0, 60).eventful()


@pytest.mark.parametrize(
    ("answer", "state"),
    [
        ({"state": {"a": "1", "b": 2}}, {"a": "1", "b": 2}),
        ({"state": {}}, {}),
        ({"state": None}, None),
        ({"state": ["a"]}, None),
        ({}, None),
        ("state", None),
    ],
)
def test_the_state_of_an_answer(answer: Any, state: dict[str, Any] | None) -> None:
    # When / Then
    assert answer_state(answer) == state


def test_the_template_gives_the_windows_resolving_parameters(tmp_path: Path) -> None:
    # Given: a stream event whose tumbling window is a parameter
    template = tmp_path / "template.yaml"
    template.write_text(
        """
Parameters:
  MetricsWindowSeconds: {Type: Number, Default: 60}
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties: {}
  MetricsFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      CodeUri: functions/metrics
      Events:
        Changes:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Table.StreamArn
            StartingPosition: TRIM_HORIZON
            TumblingWindowInSeconds: !Ref MetricsWindowSeconds
            MaximumBatchingWindowInSeconds: 2
  OutboxFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      CodeUri: functions/outbox
      Events:
        Changes:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Table.StreamArn
            StartingPosition: TRIM_HORIZON
""",
        encoding="utf-8",
    )

    # When
    model = read_stack("s", "us-east-1", {"MetricsWindowSeconds": "120"}, lambda name: name, template)

    # Then
    windows = {
        t.function_id: (t.tumbling_window_seconds, t.batching_window_seconds) for t in model.stream_triggers
    }
    assert windows == {"MetricsFunction": (120.0, 2.0), "OutboxFunction": (0.0, 0.0)}
