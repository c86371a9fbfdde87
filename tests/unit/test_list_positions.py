"""The stores' list positions: only what varies in a page's last key goes out; a position coming
back is checked and the start key rebuilt from the tenant's own partition before DynamoDB is asked
(issue 22: a cursor of the rooms list could point the query at the tenant's API keys)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from roomcast.catalog.store import CatalogTable
from roomcast.dead_letters.store import DeadLetterTable
from roomcast.keys.store import ApiKeyTable
from roomcast.messages.model import MessageFilter
from roomcast.messages.store import MessageTable
from roomcast.platform.errors import InvalidRequest
from roomcast.platform.pages import Page, Position

pytestmark = pytest.mark.security  # the security regression suite: make test-security

TENANT = "tenant-a"
ROOM = "room_" + "1" * 32
SUBSCRIPTION = "sub_" + "2" * 32
MESSAGE = "msg_" + "3" * 32
KEY_ID = "key_0123456789abcdef"
INDEX_SORT_KEY = f"2026-11-22T10:00:00.000Z#{MESSAGE}"


@dataclass
class DynamoDBStub:
    """Records each Query and answers no items and ``last_key`` as the LastEvaluatedKey."""

    last_key: dict[str, Any] | None = None
    queries: list[dict[str, Any]] = field(default_factory=list)

    def query(self, **request: Any) -> dict[str, Any]:
        self.queries.append(request)
        return {"Items": [], **({"LastEvaluatedKey": self.last_key} if self.last_key else {})}


def attributes(**values: str) -> dict[str, Any]:
    return {name: {"S": value} for name, value in values.items()}


@dataclass(frozen=True)
class Listing:
    """One list of the stores: how to call it, the key a start position rebuilds, and a position."""

    name: str
    page: Callable[[Any, Position | None], Page[Any]]
    position: Position
    start_key: dict[str, Any]
    wrong_positions: list[Position]


def _stub(store: type, stub: DynamoDBStub) -> Any:
    return store("table", client=cast(Any, stub))


LISTINGS = [
    Listing(
        "rooms",
        lambda stub, start: _stub(CatalogTable, stub).list_rooms(TENANT, 10, start),
        (ROOM,),
        attributes(PK=f"TENANT#{TENANT}", SK=f"ROOM#{ROOM}"),
        [(KEY_ID,), (f"ROOM#{ROOM}",), (SUBSCRIPTION,), (ROOM, ROOM)],
    ),
    Listing(
        "api keys",
        lambda stub, start: _stub(ApiKeyTable, stub).page(TENANT, 10, start),
        (KEY_ID,),
        attributes(PK=f"TENANT#{TENANT}", SK=f"KEY#{KEY_ID}"),
        [(ROOM,), (f"KEY#{KEY_ID}",), ("APIKEYS",)],
    ),
    Listing(
        "subscriptions",
        lambda stub, start: _stub(CatalogTable, stub).list_subscriptions(TENANT, ROOM, 10, start),
        (SUBSCRIPTION,),
        attributes(PK=f"TENANT#{TENANT}#ROOM#{ROOM}", SK=f"SUB#{SUBSCRIPTION}"),
        [(ROOM,), (f"SUB#{SUBSCRIPTION}",)],
    ),
    Listing(
        "dead letters",
        lambda stub, start: _stub(DeadLetterTable, stub).page(TENANT, ROOM, SUBSCRIPTION, 10, start),
        (MESSAGE,),
        attributes(PK=f"TENANT#{TENANT}#ROOM#{ROOM}#SUB#{SUBSCRIPTION}#DEAD", SK=MESSAGE),
        [(INDEX_SORT_KEY,), (SUBSCRIPTION,), (MESSAGE.upper(),)],
    ),
    Listing(
        "messages",
        lambda stub, start: _stub(MessageTable, stub).list_room_messages(
            TENANT, ROOM, 10, start, MessageFilter()
        ),
        (INDEX_SORT_KEY,),
        attributes(
            PK=f"TENANT#{TENANT}#MSG#{MESSAGE}",
            SK="MSG",
            GSI1PK=f"TENANT#{TENANT}#ROOM#{ROOM}#MSGS#0",
            GSI1SK=INDEX_SORT_KEY,
        ),
        [
            (MESSAGE,),
            ("2026-11-22T10:00:00.000Z#msg_1",),
            ("2026-11-22#" + MESSAGE,),
            (f"{INDEX_SORT_KEY}#{MESSAGE}",),
            ("٢٠٢٦-11-22T10:00:00.000Z#" + MESSAGE,),  # digits, but not ASCII ones
        ],
    ),
]
COMMON_WRONG_POSITIONS: list[Position] = [(), ("",), ("x" * 300,), ("a\n",)]


@pytest.mark.parametrize("listing", LISTINGS, ids=lambda listing: listing.name)
def test_a_page_answers_only_the_varying_part_of_its_last_key(listing: Listing) -> None:
    # Given: DynamoDB stops after the item of the listing's position
    stub = DynamoDBStub(last_key=listing.start_key)

    # When
    page = listing.page(stub, None)

    # Then: no tenant, no attribute names, no prefixes
    assert page.next_position == listing.position
    assert "ExclusiveStartKey" not in stub.queries[0]


@pytest.mark.parametrize("listing", LISTINGS, ids=lambda listing: listing.name)
def test_the_last_page_has_no_next_position(listing: Listing) -> None:
    assert listing.page(DynamoDBStub(), None).next_position is None


@pytest.mark.parametrize(
    "listing",
    [listing for listing in LISTINGS if listing.name != "messages"],
    ids=lambda listing: listing.name,
)
def test_a_position_starts_the_query_at_the_key_rebuilt_in_the_tenants_partition(listing: Listing) -> None:
    # Given
    stub = DynamoDBStub()

    # When
    listing.page(stub, listing.position)

    # Then
    (query,) = stub.queries
    assert query["ExclusiveStartKey"] == listing.start_key


def test_a_messages_position_bounds_the_query_of_each_of_the_rooms_index_shards() -> None:
    # Given
    stub = DynamoDBStub()

    # When
    _stub(MessageTable, stub).list_room_messages(TENANT, ROOM, 10, (INDEX_SORT_KEY,), MessageFilter())

    # Then: every shard of this tenant's room, each read from the position down, none past it
    assert sorted(q["ExpressionAttributeValues"][":pk"]["S"] for q in stub.queries) == [
        f"TENANT#{TENANT}#ROOM#{ROOM}#MSGS#{shard}" for shard in range(8)
    ]
    assert {q["ExpressionAttributeValues"][":high"]["S"] for q in stub.queries} == {INDEX_SORT_KEY}
    assert all("ExclusiveStartKey" not in q for q in stub.queries)


@pytest.mark.parametrize(
    ("listing", "position"),
    [
        (listing, position)
        for listing in LISTINGS
        for position in listing.wrong_positions + COMMON_WRONG_POSITIONS
    ],
    ids=lambda value: value.name if isinstance(value, Listing) else repr(value)[:40],
)
def test_a_position_of_another_shape_is_refused_before_dynamodb_is_asked(
    listing: Listing, position: Position
) -> None:
    # Given
    stub = DynamoDBStub()

    # When
    with pytest.raises(InvalidRequest) as refused:
        listing.page(stub, position)

    # Then
    assert (refused.value.http_status, refused.value.code) == (400, "invalid_cursor")
    assert stub.queries == []
