"""``client.dead_letters``: a subscription's dead letters: list, replay, purge."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast_client._core import Call, query, read_model
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.models import DeadLetter, Page, PurgeResult, ReplayResult
from roomcast_client.resources.common import page_call, subscription_path


def _dead_letters_path(room_id: str, subscription_id: str) -> str:
    return f"{subscription_path(room_id, subscription_id)}/dead-letters"


class DeadLetters(Resource[E]):
    @operation
    def list(
        self, room_id: str, subscription_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[DeadLetter]]:
        path = _dead_letters_path(room_id, subscription_id)
        return page_call(path, DeadLetter, "deadLetters", limit=limit, cursor=cursor)

    iter = paginated(list.build)

    @operation
    def replay(
        self,
        room_id: str,
        subscription_id: str,
        *,
        message_ids: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> Call[ReplayResult]:
        """Deliver dead letters again: ``message_ids``, or those that died in [since, until]
        (ISO 8601; a range replays a bounded number per call: repeat while ``remaining``)."""
        body = query(messageIds=None if message_ids is None else list(message_ids), since=since, until=until)
        path = f"{_dead_letters_path(room_id, subscription_id)}/replay"
        return Call("POST", path, read_model(ReplayResult), json=body, retry_safe=False)

    @operation
    def purge(self, room_id: str, subscription_id: str) -> Call[PurgeResult]:
        """Delete every dead letter of the subscription."""
        return Call("DELETE", _dead_letters_path(room_id, subscription_id), read_model(PurgeResult))
