"""List a room's messages and where each was delivered, page after page.

    ROOMCAST_URL=... ROOMCAST_API_KEY=... python iterate_messages.py ROOM_ID [EVENT_TYPE]

``iter`` follows ``nextCursor`` until the last page; ``list`` reads one page.
"""

from __future__ import annotations

import sys

from roomcast_client import Client, MessageStatus


def main(room_id: str, event_type: str | None = None, client: Client | None = None) -> list[MessageStatus]:
    seen: list[MessageStatus] = []
    with client or Client() as roomcast:
        for message in roomcast.messages.iter(room_id, event_type=event_type, limit=50):
            deliveries = ", ".join(f"{d.subscription_id}: {d.status}" for d in message.deliveries)
            print(f"{message.published_at}  {message.message_id}  {message.event_type}  [{deliveries}]")
            seen.append(message)
    print(f"{len(seen)} message(s)")
    return seen


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
