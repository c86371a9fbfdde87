"""pull, ack, nack and extend on a PULL subscription: methods of the client itself, and the calls
the PULL consumer makes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from roomcast_client._core import Call, query, read_list, read_model
from roomcast_client._executors import E, Resource, operation
from roomcast_client.models import AckResult, ExtendResult, NackResult, PullAndAckResult, PulledMessage
from roomcast_client.resources.common import subscription_path

Receipts = TypeVar("Receipts", AckResult, NackResult, ExtendResult)


def seconds_of_wait(wait_ms: int | None) -> int | None:
    """A pull's ``waitSeconds`` from milliseconds, rounded up (the API counts whole seconds)."""
    return None if wait_ms is None else -(-wait_ms // 1000)


def pull_call(
    room_id: str, subscription_id: str, *, max_messages: int, wait_seconds: int | None
) -> Call[list[PulledMessage]]:
    # A retried pull after a lost answer only delays what the lost one handed out: those
    # messages come back after their ack wait.
    return Call(
        "POST",
        f"{subscription_path(room_id, subscription_id)}/pull",
        read_list(PulledMessage, "messages"),
        json=query(maxMessages=max_messages, waitSeconds=wait_seconds),
    )


def pull_and_ack_call(
    room_id: str,
    subscription_id: str,
    receipts: Sequence[str],
    *,
    max_messages: int,
    wait_seconds: int | None,
) -> Call[PullAndAckResult]:
    # Retry-safe as a pull and an ack are: the same receipts acked twice have the effect of once.
    return Call(
        "POST",
        f"{subscription_path(room_id, subscription_id)}/pull",
        read_model(PullAndAckResult),
        json=query(maxMessages=max_messages, waitSeconds=wait_seconds) | {"ack": list(receipts)},
    )


def receipts_call(
    action: str,
    room_id: str,
    subscription_id: str,
    receipts: Sequence[str],
    model: type[Receipts],
    **extra: Any,
) -> Call[Receipts]:
    """ack, nack or extend. The same receipts twice have the effect of once: retry-safe."""
    return Call(
        "POST",
        f"{subscription_path(room_id, subscription_id)}/{action}",
        read_model(model),
        json={"receipts": list(receipts), **extra},
    )


class PullOperations(Resource[E]):
    """pull, pull_and_ack, ack, nack and extend on a PULL subscription (methods of the client itself)."""

    @operation
    def pull(
        self,
        room_id: str,
        subscription_id: str,
        *,
        max_messages: int = 10,
        wait_ms: int | None = None,
        wait_seconds: int | None = None,
    ) -> Call[list[PulledMessage]]:
        """Up to ``max_messages`` messages, each hidden for the ack wait; with ``wait_ms`` (or
        ``wait_seconds``, up to 20 s) waits that long for a first message (long polling)."""
        seconds = wait_seconds if wait_seconds is not None else seconds_of_wait(wait_ms)
        return pull_call(room_id, subscription_id, max_messages=max_messages, wait_seconds=seconds)

    @operation
    def pull_and_ack(
        self,
        room_id: str,
        subscription_id: str,
        receipts: Sequence[str],
        *,
        max_messages: int = 10,
        wait_ms: int | None = None,
        wait_seconds: int | None = None,
    ) -> Call[PullAndAckResult]:
        """``ack`` these receipts and ``pull`` the next messages, in one request: the ack's
        writes and the pull's receive run side by side once every receipt is verified."""
        seconds = wait_seconds if wait_seconds is not None else seconds_of_wait(wait_ms)
        return pull_and_ack_call(
            room_id, subscription_id, receipts, max_messages=max_messages, wait_seconds=seconds
        )

    @operation
    def ack(self, room_id: str, subscription_id: str, receipts: Sequence[str]) -> Call[AckResult]:
        """Done with these messages: they are not delivered again."""
        return receipts_call("ack", room_id, subscription_id, receipts, AckResult)

    @operation
    def nack(self, room_id: str, subscription_id: str, receipts: Sequence[str]) -> Call[NackResult]:
        """Give these messages back: each is delivered again after its backoff, or ends dead."""
        return receipts_call("nack", room_id, subscription_id, receipts, NackResult)

    @operation
    def extend(
        self, room_id: str, subscription_id: str, receipts: Sequence[str], *, ack_wait_ms: int
    ) -> Call[ExtendResult]:
        """Keep these messages hidden ``ack_wait_ms`` from now (work that takes longer)."""
        return receipts_call(
            "extend", room_id, subscription_id, receipts, ExtendResult, ackWaitMs=ack_wait_ms
        )
