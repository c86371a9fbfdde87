"""The CLI's human output, built from the API's JSON: tables hold the fields people look for,
`messages show`'s timeline orders each destination's attempts and shows its next due attempt, a
scheduled message says when it is due, an empty pull says why when its subscription tells,
`roomcast metrics` shows the points with activity, a summary and a sparkline of deliveries, and
`roomcast alerts` the rules firing (each value in its metric's unit) and the latest alerts."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console, RenderableType

from roomcast_cli import render
from roomcast_cli.output import Output
from roomcast_cli.render.alerts import condition_text, metric_value
from roomcast_cli.render.metrics import delivered_sparkline, sparkline

PUBLISHED = "2026-11-22T10:00:00.000Z"
PUSH = "sub_" + "a" * 32
PULL = "sub_" + "b" * 32


def _text(renderables: RenderableType | list[RenderableType]) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    for renderable in renderables if isinstance(renderables, list) else [renderables]:
        console.print(renderable)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def _status(**deliveries: dict[str, Any]) -> dict[str, Any]:
    return {
        "messageId": "msg_1",
        "roomId": "room_1",
        "eventType": "order.created",
        "eventVersion": "1",
        "correlationId": "order-1001",
        "payload": {"orderId": 1001},
        "publishedAt": PUBLISHED,
        "expiresAt": None,
        "destinations": [PUSH, PULL],
        "deliveries": [
            {
                "subscriptionId": PUSH,
                "subscriptionType": "PUSH",
                "status": "retrying",
                "attempts": 2,
                "lastError": "HTTP 503",
                "nextAttemptAt": "2026-11-22T10:00:03.500Z",
                "updatedAt": PUBLISHED,
                **deliveries.get("push", {}),
            },
            {
                "subscriptionId": PULL,
                "subscriptionType": "PULL",
                "status": "delivered",
                "attempts": 1,
                "lastError": None,
                "nextAttemptAt": None,
                "updatedAt": PUBLISHED,
            },
        ],
    }


ATTEMPTS = [
    {"subscriptionId": PUSH, "attempt": 1, "event": "post", "startedAt": "2026-11-22T10:00:01.500Z",
     "durationMs": 12, "httpStatus": 503, "error": None, "responseBody": "busy,\n try   later"},
    {"subscriptionId": PUSH, "attempt": 0, "event": "post", "startedAt": "2026-11-22T10:00:00.100Z",
     "durationMs": 30, "httpStatus": 500, "error": None, "responseBody": "x" * 300},
    {"subscriptionId": PULL, "attempt": 0, "event": "pull", "startedAt": "2026-11-22T10:00:00.200Z"},
    {"subscriptionId": PULL, "attempt": 0, "event": "ack", "startedAt": "2026-11-22T10:00:00.400Z"},
]  # fmt: skip


def test_timeline_orders_attempts_per_destination_and_adds_the_next_due_one() -> None:
    # When
    timelines = render.build_timeline(_status(), ATTEMPTS)

    # Then the PUSH destination shows attempts 0 and 1 in time order, then its next due attempt
    push, pull = timelines
    assert [(entry.attempt, entry.event) for entry in push.entries] == [
        (0, "post"),
        (1, "post"),
        (None, "next due"),
    ]
    assert [entry.http_status for entry in push.entries] == [500, 503, None]
    assert [entry.since_publish_s for entry in push.entries] == [0.1, 1.5, 3.5]
    assert push.entries[1].detail == "busy, try later"  # one line
    assert len(push.entries[0].detail) == render.EXCERPT_CHARS
    assert push.entries[0].detail.endswith("…")
    # and the delivered PULL destination has no next due entry
    assert [entry.event for entry in pull.entries] == ["pull", "ack"]
    assert push.heading == f"{PUSH} (PUSH): retrying, 2 attempt(s), last error: HTTP 503"


def test_a_finished_delivery_shows_no_next_due_attempt() -> None:
    # Given a dead delivery that still carries a stale nextAttemptAt
    status = _status(push={"status": "dead"})

    # When
    push = render.build_timeline(status, ATTEMPTS)[0]

    # Then
    assert "next due" not in [entry.event for entry in push.entries]


def test_message_timeline_prints_status_latency_and_excerpt() -> None:
    # When
    text = _text(render.message_timeline({"message": _status(), "attempts": ATTEMPTS}))

    # Then
    assert "order.created v1" in text
    assert "2026-11-22 10:00:01.500" in text
    assert "+1.50 s" in text
    assert "503" in text
    assert "12 ms" in text
    assert "busy, try later" in text
    assert "next due" in text
    assert "+3.50 s" in text
    assert f"{PULL} (PULL): delivered, 1 attempt(s)" in text


def test_lists_show_ids_in_full_and_a_hint_for_the_next_page() -> None:
    # Given
    room = {
        "id": "room_" + "c" * 32,
        "name": "orders",
        "messageExpirationMs": None,
        "deliveryDelayMs": 1000,
        "deliveryDelayMultiplier": 2.0,
        "deliveryAttempts": 5,
        "eventTypes": [{"name": "order.created", "versions": ["1", "2"]}, {"name": "order.paid"}],
    }

    # When
    text = _text(render.rooms_table({"rooms": [room], "nextCursor": "abc"}))

    # Then
    assert str(room["id"]) in text
    assert "order.created v1,2; order.paid" in text
    assert "--cursor abc" in text


def test_empty_lists_say_so() -> None:
    assert "no rooms" in _text(render.rooms_table({"rooms": [], "nextCursor": None}))
    assert "no dead letters" in _text(render.dead_letters_table({"deadLetters": [], "nextCursor": None}))


def test_a_new_signing_secret_is_called_out_once() -> None:
    # When
    text = _text(render.subscription_details({"id": PUSH, "type": "PUSH", "signingSecret": "whsec_abc"}))

    # Then
    assert text.count("whsec_abc") == 1
    assert "shown once" in text


def test_deliveries_summary_counts_each_status() -> None:
    assert render.deliveries_summary(_status()["deliveries"]) == "retrying 1, delivered 1"
    assert render.deliveries_summary([]) == "no destinations"


def test_json_output_is_the_data_as_given_and_human_output_goes_through_the_renderer() -> None:
    # Given
    data = {"id": "room_1", "name": "Zürich"}
    as_json, as_text = io.StringIO(), io.StringIO()

    # When
    Output(True, stdout=as_json).result(data, render.details)
    Output(False, stdout=as_text).result(data, render.details)

    # Then
    assert as_json.getvalue() == '{\n  "id": "room_1",\n  "name": "Zürich"\n}\n'
    assert "name" in as_text.getvalue()
    assert "Zürich" in as_text.getvalue()
    assert "{" not in as_text.getvalue()


def test_a_receipt_prints_whole_on_one_line_on_a_narrow_terminal() -> None:
    # Given a receipt longer than the terminal is wide
    receipt = "rcpt_" + "x" * 150
    pulled = {
        "messages": [
            {"messageId": "msg_1", "eventType": "order.created", "eventVersion": "1", "attempt": 0,
             "publishedAt": PUBLISHED, "payload": {}, "receipt": receipt}
        ]
    }  # fmt: skip
    stdout = io.StringIO()
    output = Output(False, stdout=stdout)
    output.console.width = 80

    # When
    output.result(pulled, render.pulled_messages)

    # Then it can be copied whole
    assert receipt in stdout.getvalue().splitlines()


def test_a_scheduled_publish_says_it_is_scheduled_and_when_it_is_due() -> None:
    # Given the API's answers to a publish now and to one with deliverAt (or deliverAfterMs)
    published = {"messageId": "msg_1", "correlationId": "c", "destinations": [PUSH],
                 "publishedAt": PUBLISHED, "deliverAt": None}  # fmt: skip
    scheduled = {**published, "messageId": "msg_2", "deliverAt": "2026-12-01T09:00:00.000Z"}
    batch = {"results": [{**scheduled, "status": 201}], "failedCount": 0}

    # When
    now, later = _text(render.publish_result(published)), _text(render.publish_result(scheduled))

    # Then: nothing was delivered yet, so it never says so; it says when it is due
    assert now.splitlines()[0] == "published msg_1 to 1 destination(s)"
    assert later.splitlines()[0] == "scheduled msg_2 for 1 destination(s), due 2026-12-01 09:00:00.000 UTC"
    assert "delivered" not in now + later
    assert "1 destination(s), due 2026-12-01 09:00:00.000 UTC" in _text(render.publish_batch_result(batch))


def test_scheduled_messages_are_listed_with_when_each_is_due() -> None:
    # Given a page of `messages list --scheduled`, soonest first
    soon = {**_status(), "messageId": "msg_soon", "deliverAt": "2026-12-01T09:00:00.000Z"}
    later = {**_status(), "messageId": "msg_later", "deliverAt": "2026-12-02T18:30:00.000Z"}

    # When
    text = _text(render.messages_table({"messages": [soon, later], "nextCursor": None}))
    unscheduled = _text(render.messages_table({"messages": [_status()], "nextCursor": None}))

    # Then: a DUE column, each row with its deliverAt; none when nothing listed was scheduled
    header, first, second = text.splitlines()[:3]
    assert header.split() == ["MESSAGE", "EVENT", "PUBLISHED", "DUE", "CORRELATION", "DELIVERIES"]
    assert "msg_soon" in first
    assert "2026-12-01 09:00:00.000" in first
    assert "2026-12-02 18:30:00.000" in second
    assert "DUE" not in unscheduled


def test_an_empty_pull_says_why_when_the_subscription_tells() -> None:
    # Given an empty pull, and the subscription read after it
    empty: dict[str, Any] = {"messages": []}
    ordered = {"id": PULL, "roomId": "room_1", "type": "PULL", "status": "active", "ordered": True}

    # When
    unknown = _text(render.pulled_messages(empty))
    plain = _text(render.pulled_messages(empty, {**ordered, "ordered": False}))
    waiting = _text(render.pulled_messages(empty, ordered))
    disabled = _text(render.pulled_messages(empty, {**ordered, "status": "disabled"}))

    # Then: an ordered key's next message waits for the one handed out (docs/ordering-keys.md)
    assert unknown.strip() == plain.strip() == "no messages"
    said = " ".join(waiting.split())
    assert said.startswith("no messages (this subscription is ordered: a key's next message is handed out")
    assert "after the one before it is acked" in said
    assert "a nacked one, or one whose ack wait ran out, is handed out again first" in said
    # and the command that lists its paused keys, whole on its own line
    assert (
        f"keys paused on a dead message: roomcast ordering-keys paused room_1 {PULL}" in waiting.splitlines()
    )
    assert " ".join(disabled.split()).startswith("no messages (this subscription is disabled")
    assert f"to enable it: roomcast subscriptions resume room_1 {PULL}" in disabled.splitlines()


def test_values_that_look_like_markup_are_shown_as_they_are() -> None:
    # Given a name and a payload with square brackets rich would read as styles
    message = _status()
    message["payload"] = {"flags": [True, False]}
    room = {"id": "room_1", "name": "[bold]orders[/]", "deliveryDelayMs": 1, "deliveryDelayMultiplier": 1,
            "deliveryAttempts": 0}  # fmt: skip

    # When
    timeline = _text(render.message_timeline({"message": message, "attempts": []}))
    rooms = _text(render.rooms_table({"rooms": [room], "nextCursor": None}))

    # Then
    assert '{"flags":[true,false]}' in timeline
    assert "[bold]orders[/]" in rooms


def test_the_dry_run_says_when_the_room_refuses_and_what_each_subscription_and_the_candidate_do() -> None:
    # Given
    answer = {
        "accepted": False,
        "reason": "room r does not accept event type 'x'",
        "subscriptions": [
            {
                "subscriptionId": "sub_1",
                "type": "PULL",
                "status": "active",
                "matched": False,
                "reason": "room",
            }
        ],
        "candidate": {"matched": False, "reason": "payload.a: missing; it does not match 1"},
    }

    # When
    text = _text(render.filter_test_table(answer))

    # Then
    assert "the room refuses it: room r does not accept event type 'x'" in text
    assert "sub_1" in text
    assert "the candidate policy does not match: payload.a: missing" in text
    assert (
        _text(render.filter_test_table({**answer, "subscriptions": [], "candidate": None})).count(
            "the room has no subscriptions"
        )
        == 1
    )


def test_paused_ordering_keys_show_the_key_the_dead_message_and_why() -> None:
    listed = {
        "orderingKeys": [
            {
                "orderingKey": "order-1001",
                "status": "paused",
                "deadMessageId": "msg_576e648137579110cd6d80e1bdbec8d3",
                "reason": "HTTP 500 after 5 attempts",
                "pausedAt": "2026-11-22T10:05:00.000Z",
                "inFlight": None,
            }
        ]
    }
    text = _text(render.paused_keys_table(listed))
    assert "order-1001" in text
    assert "msg_576e648137579110cd6d80e1bdbec8d3" in text
    assert "HTTP 500 after 5 attempts" in text
    assert _text(render.paused_keys_table({"orderingKeys": []})) == "no paused keys\n"


def _point(at: str, delivered: int = 0, failed: int = 0, backlog: int = 0) -> dict[str, Any]:
    attempts = delivered + failed
    return {
        "at": at,
        "attempts": attempts,
        "delivered": delivered,
        "failedAttempts": failed,
        **dict.fromkeys(
            ("dead", "expired", "aborted", "cleared", "cancelled", "failedOver", "filteredOut"), 0
        ),
        "successRate": 1 - failed / attempts if attempts else None,
        "attemptLatencyMs": {"p50": 42.3, "p95": 180.2, "p99": 1950.7} if attempts else None,
        "deliveryDelayMs": None,
        "backlog": backlog,
        "oldestOpenAgeMs": 12_400 if backlog else None,
    }


def _metrics(points: list[dict[str, Any]], resolution: str = "1m", **summary: Any) -> dict[str, Any]:
    return {
        "resolution": resolution,
        "start": points[0]["at"],
        "end": "2026-11-22T11:00:00.000Z",
        "points": points,
        "summary": {
            **_point("", 27, 5),
            "at": None,
            "successRate": 0.8438,
            "deliveryDelayMs": {"p50": 310.0, "p95": 4100.0, "p99": 8150.0},
            **summary,
        },
        "backlog": {"open": 3, "oldestOpenAgeMs": 12_400},
    }


def _minutes(count: int) -> list[dict[str, Any]]:
    return [_point(f"2026-11-22T10:{minute:02d}:00.000Z") for minute in range(count)]


def test_metrics_show_a_row_per_point_with_activity_a_summary_and_a_sparkline() -> None:
    # Given an hour of minutes, three of them with activity
    points = _minutes(60)
    points[5] = _point("2026-11-22T10:05:00.000Z", delivered=20, failed=5, backlog=3)
    points[6] = _point("2026-11-22T10:06:00.000Z", backlog=3)  # nothing happened, nothing moved
    points[7] = _point("2026-11-22T10:07:00.000Z")  # the backlog went
    points[41] = _point("2026-11-22T10:41:00.000Z", delivered=7)

    # When
    lines = _text(render.metrics_view(_metrics(points, dead=1))).splitlines()

    # Then
    assert lines[0] == "2026-11-22 10:00 → 11:00 UTC, a point per minute"
    rows = [" ".join(line.split()) for line in lines[1:5]]
    assert rows == [
        "TIME (UTC) DELIVERED FAILED SUCCESS P50 P95 P99 BACKLOG OLDEST",
        "10:05 20 5 80.0% 42 ms 180 ms 2.0 s 3 12.4 s",
        "10:07 0 0 - - - - 0 -",
        "10:41 7 0 100.0% 42 ms 180 ms 2.0 s 0 -",
    ]
    assert lines[5] == (
        "total: 32 attempts, 27 delivered, 5 failed (84.4% success), 1 dead; "
        "latency p50 42 ms, p95 180 ms, p99 2.0 s; delay p50 310 ms, p95 4.1 s, p99 8.2 s; "
        "backlog now 3, oldest 12.4 s"
    )
    spark = "▁" * 5 + "█" + "▁" * 35 + "▃" + "▁" * 18
    assert lines[6] == f"delivered {spark}  (█ = 20 per minute)"
    assert len(lines) == 7


def test_a_long_window_adds_points_up_to_a_mark_and_rows_name_their_day() -> None:
    # Given two days of hours, one of them with deliveries
    points = [_point(f"2026-11-{20 + hour // 24}T{hour % 24:02d}:00:00.000Z") for hour in range(48)]
    points[30] = _point("2026-11-21T06:00:00.000Z", delivered=4)

    # When
    text = _text(render.metrics_view(_metrics(points, resolution="1h")))

    # Then
    assert "2026-11-20 00:00 → 2026-11-22 11:00 UTC, a point per hour" in text
    assert "11-21 06:00" in text
    assert "(█ = 4 per hour)" in text
    assert delivered_sparkline({**_metrics(_minutes(1) * 1440), "resolution": "1m"}).endswith(
        "(nothing delivered)"
    )
    long = delivered_sparkline(
        _metrics([_point("2026-11-22T10:00:00.000Z", delivered=1)] * 1440, resolution="1m")
    )
    assert long == f"delivered {'█' * 60}  (█ = 24 per 24 minutes)"


def test_a_window_without_activity_says_so_and_a_pull_subscription_has_no_latency() -> None:
    # When
    text = _text(
        render.metrics_view(
            _metrics(_minutes(60), attemptLatencyMs=None, deliveryDelayMs=None, successRate=None)
        )
    )

    # Then
    assert "no activity in the window" in text
    assert "TIME (UTC)" not in text
    assert "latency" not in text
    assert "success" not in text


def test_a_sparkline_marks_nothing_lowest_and_anything_above_it() -> None:
    assert sparkline([0, 1, 50, 100, 99]) == "▁▂▅██"
    assert sparkline([0, 0]) == "▁▁"
    assert sparkline([]) == ""


def _rule(rule_id: str, condition: dict[str, Any], value: Any, **fields: Any) -> dict[str, Any]:
    return {
        "id": rule_id,
        "name": f"rule {rule_id}",
        "scope": {"roomId": "room_1", "subscriptionId": None},
        "condition": {"windowMinutes": None, "minDeliveries": None, **condition},
        "notify": {"email": "ops@example.com"},
        "state": "firing",
        "value": value,
        "changedAt": "2026-11-22T10:05:00.000Z",
        "snoozedUntil": None,
        "createdAt": PUBLISHED,
        "updatedAt": PUBLISHED,
        **fields,
    }


def _alert(rule_id: str, name: str, state: str, value: Any, at: str) -> dict[str, Any]:
    return {"ruleId": rule_id, "name": name, "state": state, "value": value, "at": at}


def test_alerts_show_each_firing_rules_condition_and_value_then_the_latest_alerts() -> None:
    # Given: two rules firing, and twelve alerts (newest first)
    rate = {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 10}
    firing = [
        _rule("alr_1", rate, 0.75),
        _rule("alr_2", {"metric": "oldestBacklogAgeMs", "above": 300_000}, 420_000,
              snoozedUntil="2026-11-22T12:00:00.000Z"),
    ]  # fmt: skip
    recent = [
        _alert("alr_1", "rule alr_1", "firing", 0.75, "2026-11-22T10:05:00.000Z"),
        _alert("alr_9", "gone", "resolved", 0.5, "2026-11-22T09:00:00.000Z"),
        *[_alert("alr_9", "gone", "firing", None, PUBLISHED)] * 10,
    ]

    # When
    lines = [
        " ".join(line.split())
        for line in _text(render.alerts_view({"firing": firing, "recent": recent})).splitlines()
    ]

    # Then
    assert lines[:3] == [
        "ID FIRING CONDITION VALUE SINCE (UTC) SNOOZED",
        "alr_1 rule alr_1 success rate < 90.0% over 5 min (at least 10 attempts) 75.0% "
        "2026-11-22 10:05:00.000",
        "alr_2 rule alr_2 oldest backlog > 5.0 min 7.0 min 2026-11-22 10:05:00.000 "
        "until 2026-11-22 12:00:00.000",
    ]
    assert lines[3] == "AT (UTC) ALERT NAME VALUE RULE"
    assert lines[4] == "2026-11-22 10:05:00.000 firing rule alr_1 75.0% alr_1"
    assert lines[5] == "2026-11-22 09:00:00.000 resolved gone 0.5 alr_9"  # its rule's metric not at hand
    assert len(lines) == 3 + 1 + 10 + 1
    assert lines[-1] == "and 2 earlier (--json lists them)"


def test_no_alert_says_so_and_a_new_rules_secret_is_called_out_once() -> None:
    assert _text(render.alerts_view({"firing": [], "recent": []})).splitlines() == [
        "no alert firing",
        "no alert in the last 35 days",
    ]
    assert "no alert rules" in _text(render.alert_rules_table({"alertRules": []}))
    created = _rule("alr_1", {"metric": "oldestBacklogAgeMs", "above": 1}, None, signingSecret="whsec_abc")
    text = _text(render.alert_rule_details(created))
    assert text.count("whsec_abc") == 1
    assert "shown once" in text


def test_the_rules_list_names_scope_condition_target_and_snooze() -> None:
    # Given
    rules = [
        _rule("alr_1", {"metric": "p95AttemptLatencyMs", "above": 2000, "windowMinutes": 15}, None,
              state="ok"),
        _rule("alr_2", {"metric": "subscriptionState", "in": ["failing", "disabled"]}, "failing",
              scope={"roomId": "room_1", "subscriptionId": "sub_1"}, notify={"slackUrl": "https://h.example/x"},
              snoozedUntil="2026-11-22T12:00:00.000Z"),
        _rule("alr_3", {"metric": "successRate", "below": 0.5, "windowMinutes": 5, "minDeliveries": 1}, None,
              scope={"roomId": None, "subscriptionId": None}, notify={"webhookUrl": "https://h.example/y"}),
    ]  # fmt: skip

    # When
    lines = [
        " ".join(line.split()) for line in _text(render.alert_rules_table({"alertRules": rules})).splitlines()
    ]

    # Then
    assert lines == [
        "ID NAME SCOPE CONDITION NOTIFY STATE SNOOZED",
        "alr_1 rule alr_1 room_1 p95 latency > 2.0 s over 15 min e-mail ops@example.com ok",
        "alr_2 rule alr_2 room_1/sub_1 state in failing, disabled Slack https://h.example/x firing "
        "until 2026-11-22 12:00:00.000",
        "alr_3 rule alr_3 tenant success rate < 50.0% over 5 min webhook https://h.example/y firing",
    ]


def test_a_value_reads_in_its_metrics_unit() -> None:
    assert [
        metric_value("successRate", 0.8438),
        metric_value("p95AttemptLatencyMs", 180.2),
        metric_value("oldestBacklogAgeMs", 12_400),
        metric_value("subscriptionState", "failing"),
        metric_value(None, 2.5),
        metric_value("successRate", None),
    ] == ["84.4%", "180 ms", "12.4 s", "failing", "2.5", "-"]
    assert condition_text(
        {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 1}
    ) == ("success rate < 90.0% over 5 min")
