"""`roomcast listen`: a local webhook receiver subscribed to a room, printing each verified delivery
as it arrives (the `stripe listen` experience).

The receiver (``roomcast_cli.receiver``) verifies and answers each request on its own threads;
this command subscribes it, prints what it hands over, and on Ctrl-C or SIGTERM deletes the
subscription it created.
"""

from __future__ import annotations

import ipaddress
import queue
import signal
import threading
from types import FrameType
from typing import Annotated, Any
from urllib.parse import urlsplit

import typer

from roomcast_cli import render
from roomcast_cli._enums import DeliveryControl
from roomcast_cli.common import JsonFlag, RoomId, dump
from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.inputs import parse_event_types
from roomcast_cli.receiver import Received, Receiver, sdk_verifier
from roomcast_cli.session import Session, session_of

SECRET_VARIABLE = "ROOMCAST_WEBHOOK_SECRET"  # noqa: S105 - a variable's name


def _is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(
    context: typer.Context,
    room_id: RoomId,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Listen on this port of 127.0.0.1 (0 = any free one).")
    ] = 0,
    path: Annotated[str, typer.Option(help="The receiver's path.")] = "/webhooks",
    event_type: Annotated[
        list[str] | None,
        typer.Option(
            "--event-type",
            "-e",
            metavar="NAME[:V1,V2]",
            help="Subscribe to these event types only (repeatable).",
        ),
    ] = None,
    subscription: Annotated[
        str | None,
        typer.Option(
            "--subscription",
            help="Use this existing PUSH subscription (its push URL must reach this receiver); "
            "needs --secret.",
        ),
    ] = None,
    secret: Annotated[
        str | None,
        typer.Option(
            envvar=SECRET_VARIABLE,
            help="The existing subscription's signing secret (whsec_…).",
            show_envvar=True,
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="Subscribe this URL instead of 127.0.0.1's: a tunnel (https) that forwards to this "
            "receiver, for a deployed stack."
        ),
    ] = None,
    forward_to: Annotated[
        str | None,
        typer.Option(
            help="Also POST each verified delivery (body and webhook headers) to this URL, e.g. your "
            "app; its status is the answer."
        ),
    ] = None,
    status: Annotated[
        int,
        typer.Option(
            min=200, max=599, help="Answer every delivery with this status (try 500 to watch retries)."
        ),
    ] = 200,
    control: Annotated[
        DeliveryControl | None,
        typer.Option(
            help="Also answer with this webhook-delivery header: abort (no more attempts of that "
            "message; on a status that is not 2xx) or disable (the subscription is disabled)."
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Receive a room's deliveries here: subscribe a local receiver, print each verified webhook,
    delete the subscription on Ctrl-C. For the local stack (deployed, see --public-url)."""
    if subscription and not secret:
        raise CliError(f"--subscription needs its signing secret: --secret whsec_… (or {SECRET_VARIABLE}).")
    session = session_of(context, json_output)
    connection = session.connection  # configuration errors before a port is taken
    try:
        receiver = Receiver(
            port, secret or "", status, forward_to, sdk_verifier(), control.value if control else None
        )
    except OSError as error:
        raise CliError(f"Cannot listen on 127.0.0.1:{port}: {error.strerror or error}.") from None
    local_url = f"http://127.0.0.1:{receiver.server_address[1]}{path}"
    created_id: str | None = None
    try:
        if subscription:
            subscription_id = subscription
            push_url = dump(session.client.subscriptions.get(room_id, subscription)).get("pushUrl") or "?"
        else:
            push_url = public_url or local_url
            created = _subscribe(session, room_id, push_url, event_type, connection.api_url)
            created_id = subscription_id = created["id"]
            receiver.secret = created["signingSecret"]
        _run(session, receiver, room_id, subscription_id, local_url, push_url)
    finally:
        receiver.server_close()
        if created_id is not None:
            _unsubscribe(session, room_id, created_id)


def _subscribe(
    session: Session, room_id: str, push_url: str, event_types: list[str] | None, api_url: str
) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": "PUSH", "pushUrl": push_url}
    if event_types:
        fields["eventTypes"] = parse_event_types(event_types)
    from roomcast_client import ApiError

    try:
        created: dict[str, Any] = dump(session.client.subscriptions.create(room_id, **fields))
    except ApiError as error:
        if error.code == "invalid_push_url" and _is_loopback_url(push_url):
            raise CliError(
                f"The API at {api_url} refuses a receiver on 127.0.0.1 ({error.message}). listen subscribes "
                "127.0.0.1 on the local stack (make run); for a deployed stack, run a tunnel to this "
                "port and "
                "pass its https URL as --public-url.",
                ExitCode.REFUSED,
            ) from None
        raise
    return created


def _run(
    session: Session, receiver: Receiver, room_id: str, subscription_id: str, local_url: str, push_url: str
) -> None:
    stop = threading.Event()

    def on_terminate(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_terminate)
    thread = threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    ready = {
        "type": "ready",
        "roomId": room_id,
        "subscriptionId": subscription_id,
        "listening": local_url,
        "pushUrl": push_url,
    }
    if session.json_mode:
        session.output.json_line(ready)
    else:
        via = "" if push_url == local_url else f" (roomcast posts to {push_url})"
        session.output.note(
            f"Ready: listening on {local_url}{via} for room {room_id}, "
            f"subscription {subscription_id}. Ctrl-C stops."
        )
    try:
        while not stop.is_set():
            try:
                received = receiver.received.get(timeout=0.2)
            except queue.Empty:
                continue
            _show(session, received)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        receiver.shutdown()
        thread.join(timeout=5)
        while not receiver.received.empty():  # what arrived during the stop
            _show(session, receiver.received.get_nowait())


def _show(session: Session, received: Received) -> None:
    data = received.as_json()
    if session.json_mode:
        session.output.json_line(data)
    elif received.error is None:
        session.output.console.print(render.webhook_line(data))
    else:
        session.output.note(f"refused a request (answered 401): {received.error}")


def _unsubscribe(session: Session, room_id: str, subscription_id: str) -> None:
    try:
        session.client.subscriptions.delete(room_id, subscription_id)
    except Exception as error:
        raise CliError(
            f"Could not delete subscription {subscription_id}: {error}. Delete it with: "
            f"roomcast subscriptions delete {room_id} {subscription_id} --yes",
            ExitCode.SERVER_ERROR,
        ) from None
    if session.json_mode:
        session.output.json_line({"type": "stopped", "deletedSubscriptionId": subscription_id})
    else:
        session.output.note(f"Stopped: deleted subscription {subscription_id}.")
