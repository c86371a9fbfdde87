"""The `roomcast` command line end to end: each command family run against the local stack, with
`--json` (parsed) and human output (key strings), input from an argument, a file and stdin, bad
input with its message and documented exit code, and `roomcast listen` receiving a verified delivery
and deleting its subscription when stopped (docs/cli.md).

Commands run in this process through the same entry point as `python -m roomcast_cli`
(`roomcast_cli.main.run`), with their own environment, working folder, stdin and captured output: a
fresh interpreter per command cost about a second each. `listen` runs as a real subprocess, which
also proves the module's entry point."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from click.testing import CliRunner

from roomcast_cli.main import run as run_command_line
from roomcast_dev.webhook_receiver import Reply, WebhookReceiver, always
from tests.e2e.conftest import ApiClient, wait_until

COMMAND_TIMEOUT_S = 60.0
# What the CLI and the SDK read from the environment (the stack's own settings are left alone).
CLI_SETTINGS = (
    "ROOMCAST_URL",
    "ROOMCAST_API_KEY",
    "ROOMCAST_STATE_FILE",
    "ROOMCAST_WEBHOOK_SECRET",
    "COLUMNS",
)
OK, REFUSED, USAGE, UNREACHABLE = 0, 1, 2, 3


def _environment(client: ApiClient | None, tmp_path: Path) -> dict[str, str]:
    """This process's environment without any roomcast setting, then the tenant's URL and key; the
    state file points nowhere so a local stack someone runs in this checkout is never picked up."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("ROOMCAST_")}
    environment["ROOMCAST_STATE_FILE"] = str(tmp_path / "no-stack.json")
    environment.pop("COLUMNS", None)
    if client is not None:
        environment["ROOMCAST_URL"] = client.base_url
        assert client.api_key is not None
        environment["ROOMCAST_API_KEY"] = client.api_key
    return environment


@dataclass(frozen=True)
class Completed:
    """What one command line did: as ``subprocess.CompletedProcess`` tells it."""

    returncode: int
    stdout: str
    stderr: str


@contextmanager
def _working_folder(folder: Path | None) -> Iterator[None]:
    """In ``folder`` (the process's, so only where a test needs it: finding a state file)."""
    before = Path.cwd()
    if folder is not None:
        os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def roomcast(
    client: ApiClient | None,
    tmp_path: Path,
    *arguments: str,
    stdin: str | None = None,
    environment: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Completed:
    """``roomcast <arguments>`` with exactly ``environment``'s roomcast settings (others unset), in
    ``cwd`` if given, with ``stdin`` piped in (empty: a pipe, never a terminal)."""
    wanted = environment or _environment(client, tmp_path)
    changes = {name: wanted.get(name) for name in CLI_SETTINGS}
    with (
        CliRunner().isolation(input=stdin or "", env=changes) as (stdout, stderr, _),
        _working_folder(cwd),
    ):
        returncode = run_command_line(list(arguments))
        sys.stdout.flush()
        sys.stderr.flush()
        return Completed(returncode, stdout.getvalue().decode(), stderr.getvalue().decode())


def json_of(result: Completed, code: int = OK) -> Any:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    return json.loads(result.stdout)


def human(result: Completed, code: int = OK) -> str:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stdout


def _delivery_status(client: ApiClient, room_id: str, message_id: str) -> str:
    response = client.get(f"/rooms/{room_id}/messages/{message_id}")
    assert response.status_code == 200, response.text
    status: str = response.json()["deliveries"][0]["status"]
    return status


def test_rooms_create_list_show_patch_delete(tenant_a: ApiClient, tmp_path: Path) -> None:
    # Given / When a room is created with flags and --set
    room = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "rooms",
            "create",
            "orders",
            "--delivery-delay-ms",
            "2000",
            "-e",
            "order.created:1,2",
            "--set",
            "messageExpirationMs=60000",
            "--json",
        )
    )

    # Then the API's JSON comes back as is
    assert room["id"].startswith("room_")
    assert room["deliveryDelayMs"] == 2000
    assert room["messageExpirationMs"] == 60000
    assert room["eventTypes"] == [{"name": "order.created", "versions": ["1", "2"]}]
    # and lists and shows in human tables
    listed = human(roomcast(tenant_a, tmp_path, "rooms", "list"))
    assert room["id"] in listed
    assert "order.created v1,2" in listed
    patched = json_of(
        roomcast(tenant_a, tmp_path, "rooms", "patch", room["id"], "--delivery-attempts", "3", "--json")
    )
    assert patched["deliveryAttempts"] == 3
    shown = human(roomcast(tenant_a, tmp_path, "rooms", "show", room["id"]))
    assert "deliveryAttempts" in shown
    # When deleted, it is gone: show is refused with the API's code, exit code 1
    deleted = json_of(roomcast(tenant_a, tmp_path, "rooms", "delete", room["id"], "--yes", "--json"))
    assert (deleted["kind"], deleted["state"], deleted["roomId"]) == ("delete-room", "succeeded", room["id"])
    gone = roomcast(tenant_a, tmp_path, "rooms", "show", room["id"], "--json")
    assert gone.returncode == REFUSED
    assert gone.stdout == ""
    assert json.loads(gone.stderr)["error"]["code"] == "not_found"


def test_subscriptions_every_command(tenant_a: ApiClient, tmp_path: Path) -> None:
    # Given a room and a receiver
    room = tenant_a.create_room()
    with WebhookReceiver(always()) as server:
        # When a PUSH subscription is created
        created = json_of(
            roomcast(
                tenant_a,
                tmp_path,
                "subscriptions",
                "create",
                room["id"],
                "--push-url",
                server.url(),
                "--delivery-attempts",
                "4",
                "--retry-schedule-ms",
                "1000,2000",
                "--json",
            )
        )

        # Then its secret is in the answer, once
        assert created["signingSecret"].startswith("whsec_")
        assert created["retryScheduleMs"] == [1000, 2000]
        sub_id = created["id"]
        listed = human(roomcast(tenant_a, tmp_path, "subscriptions", "list", room["id"]))
        assert sub_id in listed
        assert server.url() in listed
        paused = json_of(roomcast(tenant_a, tmp_path, "subscriptions", "pause", room["id"], sub_id, "--json"))
        assert paused["status"] == "paused"
        resumed = human(roomcast(tenant_a, tmp_path, "subscriptions", "resume", room["id"], sub_id))
        assert f"{sub_id} is active" in resumed
        patched = json_of(
            roomcast(
                tenant_a,
                tmp_path,
                "subscriptions",
                "patch",
                room["id"],
                sub_id,
                "--set",
                "retryScheduleMs=null",
                "--max-delay-ms",
                "5000",
                "--json",
            )
        )
        assert patched["retryScheduleMs"] is None
        assert patched["maxDelayMs"] == 5000
        schedule = human(roomcast(tenant_a, tmp_path, "subscriptions", "schedule", room["id"], sub_id))
        assert f"policy of {sub_id}" in schedule
        assert "SINCE PUBLISH" in schedule
        rotated = json_of(
            roomcast(tenant_a, tmp_path, "subscriptions", "rotate-secret", room["id"], sub_id, "--json")
        )
        assert rotated["signingSecret"].startswith("whsec_")
        assert rotated["signingSecret"] != created["signingSecret"]
        shown = human(roomcast(tenant_a, tmp_path, "subscriptions", "show", room["id"], sub_id))
        assert "whsec_" not in shown
        # When deleted
        assert "deleted subscription" in human(
            roomcast(tenant_a, tmp_path, "subscriptions", "delete", room["id"], sub_id, "--yes")
        )

    # Then it is gone
    assert tenant_a.get(f"/rooms/{room['id']}/subscriptions/{sub_id}").status_code == 404


def test_publish_from_an_argument_a_file_and_stdin_then_pull_ack_and_show(
    tenant_a: ApiClient, tmp_path: Path
) -> None:
    # Given a room with a PULL subscription
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    payload_file = tmp_path / "payload.json"
    payload_file.write_text('{"from": "file"}')

    # When the same room gets a payload from each source
    from_argument = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "publish",
            room["id"],
            '{"from": "argument"}',
            "-t",
            "order.created",
            "--correlation-id",
            "order-1",
            "--json",
        )
    )
    from_file = human(
        roomcast(tenant_a, tmp_path, "publish", room["id"], "-f", str(payload_file), "-t", "order.created")
    )
    from_stdin = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "publish",
            room["id"],
            "-t",
            "order.created",
            "--json",
            stdin='{"from": "stdin"}',
        )
    )

    # Then each was published to the subscription
    assert from_argument["correlationId"] == "order-1"
    assert from_argument["destinations"] == [subscription["id"]]
    assert "to 1 destination(s)" in from_file
    assert from_stdin["messageId"].startswith("msg_")
    # and pull hands out all three, with receipts that ack takes from stdin
    pulled = json_of(
        roomcast(tenant_a, tmp_path, "pull", room["id"], subscription["id"], "--wait", "5", "--json")
    )["messages"]
    assert sorted(message["payload"]["from"] for message in pulled) == ["argument", "file", "stdin"]
    receipts = "\n".join(message["receipt"] for message in pulled)
    acked = human(roomcast(tenant_a, tmp_path, "ack", room["id"], subscription["id"], "-", stdin=receipts))
    assert "acked 3" in acked
    # and the room's messages list them; show prints the destination's timeline
    listed = json_of(roomcast(tenant_a, tmp_path, "messages", "list", room["id"], "--since", "1h", "--json"))
    assert {m["messageId"] for m in listed["messages"]} >= {
        from_argument["messageId"],
        from_stdin["messageId"],
    }
    timeline = human(roomcast(tenant_a, tmp_path, "messages", "show", room["id"], from_argument["messageId"]))
    assert f"{subscription['id']} (PULL): delivered" in timeline
    assert "pull" in timeline
    assert "ack" in timeline


def test_a_scheduled_publish_says_when_it_is_due_and_the_scheduled_list_shows_it(
    tenant_a: ApiClient, tmp_path: Path
) -> None:
    # Given a room with a PULL subscription
    room = tenant_a.create_room()
    tenant_a.create_subscription(room["id"])

    # When a message is published for an hour from now, and what waits is listed
    said = human(
        roomcast(
            tenant_a,
            tmp_path,
            "publish",
            room["id"],
            '{"invoiceId": 77}',
            "-t",
            "invoice.reminder",
            "--deliver-in",
            "1h",
        )
    )
    (message,) = json_of(
        roomcast(tenant_a, tmp_path, "messages", "list", room["id"], "--scheduled", "--json")
    )["messages"]
    listed = human(roomcast(tenant_a, tmp_path, "messages", "list", room["id"], "--scheduled"))

    # Then the publish says it is scheduled and when it is due (nothing was delivered yet)
    due = datetime.fromisoformat(message["deliverAt"].replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M:%S")
    assert said.startswith(f"scheduled {message['messageId']} for 1 destination(s), due {due}")
    assert "delivered" not in said
    # and the list has a DUE column with its deliverAt
    header, row = listed.splitlines()[:2]
    assert header.split()[3] == "DUE"
    assert message["messageId"] in row
    assert due in row


def test_a_dead_delivery_in_the_timeline_dead_letters_and_deliveries(
    tenant_a: ApiClient, tmp_path: Path
) -> None:
    # Given a PUSH subscription whose receiver refuses every message for good (400: dead at once)
    room = tenant_a.create_room()
    with WebhookReceiver(always(Reply(400, body=b"no such order"))) as server:
        subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
        sub_id = subscription["id"]
        published = json_of(
            roomcast(tenant_a, tmp_path, "publish", room["id"], "{}", "-t", "order.created", "--json")
        )
        message_id = published["messageId"]

        # When the CLI waits for the delivery to end
        shown = json_of(
            roomcast(tenant_a, tmp_path, "messages", "show", room["id"], message_id, "--wait", "--json")
        )
        timeline = human(roomcast(tenant_a, tmp_path, "messages", "show", room["id"], message_id))

        # Then the JSON has the status and the attempts, the table the status code and response
        assert shown["message"]["deliveries"][0]["status"] == "dead"
        assert [(a["attempt"], a["httpStatus"]) for a in shown["attempts"]] == [(0, 400)]
        assert f"{sub_id} (PUSH): dead, 1 attempt(s)" in timeline
        assert "no such order" in timeline
        # and it is listed as a dead delivery and a dead letter
        dead = json_of(
            roomcast(
                tenant_a, tmp_path, "deliveries", "list", room["id"], sub_id, "--status", "dead", "--json"
            )
        )
        assert [d["messageId"] for d in dead["deliveries"]] == [message_id]
        letters = human(roomcast(tenant_a, tmp_path, "dead-letters", "list", room["id"], sub_id))
        assert message_id in letters
        # When replayed by id to a receiver that now accepts it
        server.respond_with(always())
        replayed = json_of(
            roomcast(
                tenant_a, tmp_path, "dead-letters", "replay", room["id"], sub_id, "--id", message_id, "--json"
            )
        )

        # Then it is delivered
        assert replayed["replayed"] == [message_id]
        wait_until(
            lambda: _delivery_status(tenant_a, room["id"], message_id) == "delivered",
            "delivered after replay",
        )

    # and the bulk actions answer with their counts
    retried = json_of(roomcast(tenant_a, tmp_path, "deliveries", "retry", room["id"], sub_id, "--json"))
    assert (retried["kind"], retried["state"], retried["counts"]["retried"]) == (
        "retry-deliveries",
        "succeeded",
        0,
    )
    named = json_of(
        roomcast(tenant_a, tmp_path, "deliveries", "retry", room["id"], sub_id, "--id", message_id, "--json")
    )
    assert named == {"retried": 0, "messageIds": [], "notRetrying": [message_id]}
    cleared = human(roomcast(tenant_a, tmp_path, "deliveries", "clear", room["id"], sub_id, "--yes"))
    assert "clear-deliveries succeeded: cleared 0" in cleared
    purged = json_of(
        roomcast(tenant_a, tmp_path, "dead-letters", "purge", room["id"], sub_id, "--yes", "--json")
    )
    assert (purged["kind"], purged["state"], purged["counts"]["purged"]) == (
        "purge-dead-letters",
        "succeeded",
        0,
    )


def test_bad_input_gets_a_message_and_its_exit_code(tenant_a: ApiClient, tmp_path: Path) -> None:
    # Given
    room = tenant_a.create_room()

    # When the payload is not JSON: nothing is sent, exit code 2
    invalid = roomcast(tenant_a, tmp_path, "publish", room["id"], "{order: 1}", "-t", "order.created")
    assert invalid.returncode == USAGE
    assert "the payload is not valid JSON" in invalid.stderr
    # When the room does not exist: the API's code and message, exit code 1
    unknown = roomcast(tenant_a, tmp_path, "publish", "room_" + "0" * 32, "{}", "-t", "order.created")
    assert unknown.returncode == REFUSED
    assert "not_found" in unknown.stderr
    assert "404" in unknown.stderr
    # When the API refuses a field: each offending field is named
    refused = roomcast(tenant_a, tmp_path, "rooms", "create", "x", "--delivery-attempts", "999")
    assert refused.returncode == REFUSED
    assert "body.deliveryAttempts" in refused.stderr
    # When a destructive command has no terminal to confirm on
    unconfirmed = roomcast(tenant_a, tmp_path, "rooms", "delete", room["id"])
    assert unconfirmed.returncode == USAGE
    assert "--yes" in unconfirmed.stderr
    # When the key is wrong: exit code 3 and a hint
    environment = _environment(tenant_a, tmp_path) | {"ROOMCAST_API_KEY": "rc_" + "x" * 40}
    forbidden = roomcast(None, tmp_path, "rooms", "list", environment=environment)
    assert forbidden.returncode == UNREACHABLE
    assert "ROOMCAST_API_KEY" in forbidden.stderr
    # When the API cannot be reached
    environment = _environment(tenant_a, tmp_path) | {"ROOMCAST_URL": "http://127.0.0.1:9"}
    unreachable = roomcast(None, tmp_path, "--timeout", "5", "rooms", "list", environment=environment)
    assert unreachable.returncode == UNREACHABLE
    assert "cannot reach the roomcast API at http://127.0.0.1:9" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr


def test_a_running_local_stack_is_found_from_its_state_file(tenant_a: ApiClient, tmp_path: Path) -> None:
    # Given a project folder whose state file names the stack (its pid: this live process) and a key
    project = tmp_path / "project"
    state_file = project / ".local" / "stack.json"
    state_file.parent.mkdir(parents=True)
    state_file.write_text(
        json.dumps({"apiUrl": tenant_a.base_url, "pid": os.getpid(), "apiKey": tenant_a.api_key})
    )
    room = tenant_a.create_room(name="found")
    environment = _environment(None, tmp_path)
    environment.pop("ROOMCAST_STATE_FILE")
    subfolder = project / "src"
    subfolder.mkdir()

    # When roomcast runs in a subfolder with nothing else configured
    rooms = json_of(
        roomcast(None, tmp_path, "rooms", "list", "--json", environment=environment, cwd=subfolder)
    )
    config = json_of(roomcast(None, tmp_path, "--json", "config", environment=environment, cwd=subfolder))

    # Then it used the stack's URL and key
    assert [r["id"] for r in rooms["rooms"]] == [room["id"]]
    assert config["apiUrl"] == tenant_a.base_url
    assert config["apiKeyFrom"] == str(state_file)


def test_api_keys_create_list_delete(tenant_a: ApiClient, tmp_path: Path) -> None:
    # When a key is created
    created = json_of(roomcast(tenant_a, tmp_path, "api-keys", "create", "--name", "billing", "--json"))

    # Then it is shown once and listed by id and name beside the current one
    assert created["key"].startswith("rc_")
    listed = human(roomcast(tenant_a, tmp_path, "api-keys", "list"))
    assert created["keyId"] in listed
    assert "billing" in listed
    assert "current" in listed
    # When it is revoked (with the tenant's first key), it is gone
    deleted = json_of(roomcast(tenant_a, tmp_path, "api-keys", "delete", created["keyId"], "--yes", "--json"))
    assert deleted == {"deleted": created["keyId"]}
    again = roomcast(tenant_a, tmp_path, "api-keys", "delete", created["keyId"], "--yes")
    assert again.returncode == REFUSED
    assert "not_found" in again.stderr


def _lines(stream: IO[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _next_json(lines: queue.Queue[str], what: str, timeout_s: float = 30.0) -> dict[str, Any]:
    try:
        line = lines.get(timeout=timeout_s)
    except queue.Empty:
        raise AssertionError(f"{what}: no line within {timeout_s} s") from None
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def test_listen_prints_each_verified_delivery_and_deletes_its_subscription(
    tenant_a: ApiClient, tmp_path: Path
) -> None:
    # Given roomcast listen on a room
    room = tenant_a.create_room()
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "roomcast_cli", "listen", room["id"], "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(tenant_a, tmp_path),
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        lines = _lines(process.stdout)
        ready = _next_json(lines, "listen's ready line")
        assert ready["type"] == "ready"
        sub_id = ready["subscriptionId"]
        subscription = tenant_a.get(f"/rooms/{room['id']}/subscriptions/{sub_id}").json()
        assert subscription["pushUrl"] == ready["listening"]

        # When a message is published
        response = tenant_a.post(
            f"/rooms/{room['id']}/messages",
            {"eventType": "order.created", "eventVersion": "1", "payload": {"n": 1}},
        )
        assert response.status_code == 202, response.text

        # Then listen prints it, verified, and answered 200
        delivery = _next_json(lines, "the delivery")
        assert delivery["type"] == "delivery"
        assert delivery["answered"] == 200
        assert delivery["webhookId"] == response.json()["messageId"]
        assert delivery["body"]["payload"] == {"n": 1}
        wait_until(
            lambda: _delivery_status(tenant_a, room["id"], response.json()["messageId"]) == "delivered",
            "delivered",
        )

        # When stopped
        process.send_signal(signal.SIGTERM)
        stopped = _next_json(lines, "the stopped line")
        assert process.wait(timeout=COMMAND_TIMEOUT_S) == OK
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    # Then the subscription it created is gone
    assert stopped == {"type": "stopped", "deletedSubscriptionId": sub_id}
    assert tenant_a.get(f"/rooms/{room['id']}/subscriptions/{sub_id}").status_code == 404


def test_filters_on_create_in_publish_and_show_and_the_dry_run(tenant_a: ApiClient, tmp_path: Path) -> None:
    # Given
    room = tenant_a.create_room()
    policy = '{"amount": [{"numeric": [">=", 100]}]}'
    created = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "subscriptions",
            "create",
            room["id"],
            "--pull",
            "--filter-policy",
            policy,
            "--json",
        )
    )
    small = '{"amount": 5}'

    # When
    published = human(roomcast(tenant_a, tmp_path, "publish", room["id"], small, "-t", "order.created"))
    message_id = published.split()[1]
    shown = human(roomcast(tenant_a, tmp_path, "messages", "show", room["id"], message_id))
    tried = human(
        roomcast(
            tenant_a,
            tmp_path,
            "filters",
            "test",
            room["id"],
            small,
            "-t",
            "order.created",
            "--filter-policy",
            '{"amount": [5]}',
        )
    )
    bad = roomcast(
        tenant_a, tmp_path, "subscriptions", "patch", room["id"], created["id"], "--filter-policy", "{nope"
    )
    removed = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "subscriptions",
            "patch",
            room["id"],
            created["id"],
            "--filter-policy",
            "null",
            "--json",
        )
    )

    # Then
    assert created["filterPolicy"] == json.loads(policy)
    missed = f"filtered out of {created['id']}: payload.amount: 5 is not >= 100"
    assert missed in published
    assert missed in shown
    assert created["id"] in tried
    assert "is not >= 100" in tried
    assert "the candidate policy matches" in tried
    assert bad.returncode == USAGE
    assert "--filter-policy is not valid JSON" in bad.stderr
    assert removed["filterPolicy"] is None


def test_event_types_create_list_validate_archive_restore_export(tenant_a: ApiClient, tmp_path: Path) -> None:
    # Given
    schema = '1={"type": "object", "required": ["orderId"]}'

    # When
    created = json_of(
        roomcast(tenant_a, tmp_path, "event-types", "create", "order.created", "-s", schema, "--json")
    )
    listed = human(roomcast(tenant_a, tmp_path, "event-types", "list"))
    invalid = roomcast(tenant_a, tmp_path, "event-types", "validate", "order.created", "{}")
    valid = human(roomcast(tenant_a, tmp_path, "event-types", "validate", "order.created", '{"orderId": 1}'))
    room = tenant_a.create_room()
    refused = roomcast(tenant_a, tmp_path, "publish", room["id"], "{}", "-t", "order.created")
    archived = json_of(roomcast(tenant_a, tmp_path, "event-types", "archive", "order.created", "--json"))
    restored = human(roomcast(tenant_a, tmp_path, "event-types", "restore", "order.created"))
    exported = json_of(roomcast(tenant_a, tmp_path, "event-types", "export"))
    bad = roomcast(tenant_a, tmp_path, "event-types", "create", "x", "-s", "nope")

    # Then
    assert (created["validation"], created["versions"]) == ("reject", ["1"])
    assert "order.created" in listed
    assert "reject" in listed
    assert invalid.returncode == REFUSED
    assert 'payload: "orderId" is a required property' in invalid.stdout
    assert "valid" in valid
    assert refused.returncode == REFUSED
    assert "schema_violation" in refused.stderr
    assert archived["archived"] is True
    assert "order.created" in restored
    assert list(exported["webhooks"]) == ["order.created v1"]
    assert bad.returncode == USAGE
    assert "VERSION=JSON" in bad.stderr


def test_ordered_subscription_keys_pause_on_a_dead_message_and_resume_skipping_it(
    tenant_a: ApiClient, tmp_path: Path
) -> None:
    # Given an ordered PULL subscription whose messages die at their first nack
    room = tenant_a.create_room()
    created = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "subscriptions",
            "create",
            room["id"],
            "--pull",
            "--ordered",
            "--delivery-attempts",
            "0",
            "--json",
        )
    )
    assert (created["ordered"], created["onDeadKey"]) == (True, "pause")
    sub_id = created["id"]
    published = [
        json_of(
            roomcast(
                tenant_a,
                tmp_path,
                "publish",
                room["id"],
                str(n),
                "-t",
                "order.paid",
                "--ordering-key",
                "order:1001",
                "--json",
            )
        )
        for n in range(2)
    ]
    assert [p["orderingKey"] for p in published] == ["order:1001", "order:1001"]

    # When the key's first message is pulled and nacked (dead)
    pulled = json_of(roomcast(tenant_a, tmp_path, "pull", room["id"], sub_id, "--wait", "5", "--json"))
    assert [m["messageId"] for m in pulled["messages"]] == [published[0]["messageId"]]
    receipt = pulled["messages"][0]["receipt"]
    # (the key's next message waits behind it: an empty pull says the subscription is ordered)
    waiting = human(roomcast(tenant_a, tmp_path, "pull", room["id"], sub_id))
    assert waiting.startswith("no messages (this subscription is ordered: a key's next message")
    assert f"roomcast ordering-keys paused {room['id']} {sub_id}" in waiting.splitlines()[-1]
    human(roomcast(tenant_a, tmp_path, "nack", room["id"], sub_id, receipt))

    # Then the key is listed paused on it
    def paused() -> Any:
        listed = json_of(
            roomcast(tenant_a, tmp_path, "ordering-keys", "paused", room["id"], sub_id, "--json")
        )
        return listed["orderingKeys"]

    (key,) = wait_until(paused, "the key paused")
    assert (key["orderingKey"], key["deadMessageId"]) == ("order:1001", published[0]["messageId"])
    table = human(roomcast(tenant_a, tmp_path, "ordering-keys", "paused", room["id"], sub_id))
    assert "order:1001" in table
    assert published[0]["messageId"] in table

    # When resumed skipping it, the key's next message is handed out
    resumed = json_of(
        roomcast(
            tenant_a,
            tmp_path,
            "ordering-keys",
            "resume",
            room["id"],
            sub_id,
            "order:1001",
            "--skip",
            "--json",
        )
    )
    assert (resumed["status"], resumed["inFlight"]) == ("flowing", published[1]["messageId"])
    again = json_of(roomcast(tenant_a, tmp_path, "pull", room["id"], sub_id, "--wait", "5", "--json"))
    assert [m["messageId"] for m in again["messages"]] == [published[1]["messageId"]]
    # and resuming a flowing key is refused with the API's code
    flowing = roomcast(tenant_a, tmp_path, "ordering-keys", "resume", room["id"], sub_id, "order:1001")
    assert flowing.returncode == REFUSED
    assert "not_paused" in flowing.stderr
