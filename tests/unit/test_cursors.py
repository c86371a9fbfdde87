"""List cursors: opaque, sealed, bound to the tenant, the list and its filters; nothing else opens.

Issue 22 (defect 2): a cursor was base64 JSON of the DynamoDB key; hand-made, edited and moved
cursors answered 200.
"""

from __future__ import annotations

import base64
import json
import string
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from roomcast.api.cursors import (
    CURSOR_PREFIX,
    MAX_CURSOR_LENGTH,
    MAX_POSITION_VALUES,
    CursorSealer,
    ListCursors,
    list_scope,
)
from roomcast.platform.errors import InvalidRequest
from roomcast.platform.pages import MAX_POSITION_VALUE_LENGTH, Position

pytestmark = pytest.mark.security  # the security regression suite: make test-security

KEY = b"k" * 32
SEALER = CursorSealer(KEY)
TENANT = "tenant-a"
ROOM, OTHER_ROOM = "room_" + "1" * 32, "room_" + "2" * 32
SUBSCRIPTION = "sub_" + "3" * 32
ROOMS = list_scope("rooms")
MESSAGES = list_scope("messages", ROOM)
MESSAGE_POSITION = ("2026-11-22T10:00:00.000Z#msg_" + "4" * 32,)
ROOM_POSITION = (OTHER_ROOM,)
# Every list and a filtered variant: a cursor of one is refused by each other.
SCOPES = [
    ROOMS,
    list_scope("api-keys"),
    list_scope("subscriptions", ROOM),
    list_scope("subscriptions", OTHER_ROOM),
    MESSAGES,
    list_scope("messages", OTHER_ROOM),
    list_scope("messages", ROOM, eventType="order.created"),
    list_scope("messages", ROOM, since="2026-11-22T10:00:00.000Z"),
    list_scope("messages", ROOM, until="2026-11-22T10:00:00.000Z"),
    list_scope("deliveries", ROOM, SUBSCRIPTION),
    list_scope("deliveries", ROOM, SUBSCRIPTION, status="retrying"),
    list_scope("dead-letters", ROOM, SUBSCRIPTION),
]


def refusal(
    cursor: str, tenant_id: str = TENANT, scope: str = MESSAGES, sealer: CursorSealer = SEALER
) -> None:
    with pytest.raises(InvalidRequest) as raised:
        sealer.open(cursor, tenant_id, scope)
    assert raised.value.http_status == 400
    assert raised.value.code == "invalid_cursor"
    assert raised.value.details == [
        {"field": "query.cursor", "problem": "cursor is not valid for this list", "type": "invalid_cursor"}
    ]


def fields_of(cursor: str) -> Any:
    encoded = cursor.removeprefix(CURSOR_PREFIX).partition(".")[0]
    return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))


def with_position(cursor: str, position: Any) -> str:
    """The cursor with another position, keeping its (now wrong) signature."""
    text = json.dumps(position, separators=(",", ":")).encode()
    signature = cursor.partition(".")[2]
    return CURSOR_PREFIX + base64.urlsafe_b64encode(text).decode().rstrip("=") + "." + signature


def test_a_cursor_opens_to_the_position_it_sealed() -> None:
    # Given
    cursor = SEALER.seal(MESSAGE_POSITION, TENANT, MESSAGES)

    # When / Then
    assert SEALER.open(cursor, TENANT, MESSAGES) == MESSAGE_POSITION


def test_a_cursor_names_no_tenant_no_key_and_no_table_layout() -> None:
    # When
    cursor = SEALER.seal(ROOM_POSITION, TENANT, ROOMS)

    # Then: URL-safe, unpadded, and all it carries is the position
    assert cursor.startswith(CURSOR_PREFIX)
    assert set(cursor) <= set(string.ascii_letters + string.digits + "-_.")
    assert fields_of(cursor) == [OTHER_ROOM]
    decoded = json.dumps(fields_of(cursor))
    for leak in (TENANT, "TENANT#", "PK", "SK", "ROOM#", "GSI1"):
        assert leak not in decoded


def test_the_page_size_is_not_bound() -> None:
    # Given: scopes never hold the limit, so a client may change it between pages
    cursor = SEALER.seal(ROOM_POSITION, TENANT, ROOMS)

    # When / Then
    assert SEALER.open(cursor, TENANT, list_scope("rooms")) == ROOM_POSITION


@pytest.mark.parametrize("issued", SCOPES)
def test_a_cursor_of_one_list_is_refused_by_every_other(issued: str) -> None:
    # Given
    cursor = SEALER.seal(ROOM_POSITION, TENANT, issued)

    # When / Then
    assert SEALER.open(cursor, TENANT, issued) == ROOM_POSITION
    for other in SCOPES:
        if other != issued:
            refusal(cursor, scope=other)


def test_a_cursor_of_another_tenant_is_refused() -> None:
    refusal(SEALER.seal(MESSAGE_POSITION, "tenant-b", MESSAGES))


def test_a_cursor_sealed_with_another_key_is_refused() -> None:
    # A key rotation invalidates the cursors in flight.
    refusal(CursorSealer(b"x" * 32).seal(MESSAGE_POSITION, TENANT, MESSAGES))


@pytest.mark.parametrize(
    "position",
    [
        ["2026-11-22T10:00:00.000Z#msg_" + "5" * 32],  # another message
        ["2026-11-23T10:00:00.000Z#msg_" + "4" * 32],  # the index sort key's time changed
        ["KEY#key_0123456789abcdef"],
        [ROOM],
        {"PK": "TENANT#tenant-a", "SK": "ROOM#" + ROOM},
        [*MESSAGE_POSITION, "extra"],
        [],
        "x",
        None,
    ],
    ids=repr,
)
def test_an_edited_position_breaks_the_seal(position: Any) -> None:
    refusal(with_position(SEALER.seal(MESSAGE_POSITION, TENANT, MESSAGES), position))


def test_every_one_character_edit_is_refused() -> None:
    # Given
    cursor = SEALER.seal(MESSAGE_POSITION, TENANT, MESSAGES)
    alphabet = string.ascii_letters + string.digits + "-_.="

    # When / Then: each character replaced by each other of the cursor's alphabet
    for index, original in enumerate(cursor):
        for replacement in alphabet:
            if replacement != original:
                refusal(cursor[:index] + replacement + cursor[index + 1 :])


def test_cursors_spliced_together_are_refused() -> None:
    # Given: two cursors of one tenant and list
    first = SEALER.seal(("2026-11-22T10:00:00.000Z#msg_" + "a" * 32,), TENANT, MESSAGES)
    second = SEALER.seal(("2026-11-21T10:00:00.000Z#msg_" + "b" * 32,), TENANT, MESSAGES)

    # When / Then: one's position with the other's signature, and every cut of one joined to the other
    refusal(first.partition(".")[0] + "." + second.partition(".")[2])
    for cut in range(1, min(len(first), len(second))):
        for spliced in (first[:cut] + second[cut:], second[:cut] + first[cut:]):
            if spliced not in (first, second):
                refusal(spliced)
    # and a cursor given twice, or with a signature of another list
    refusal(first + second)
    other_list = SEALER.seal(MESSAGE_POSITION, TENANT, ROOMS)
    refusal(first.partition(".")[0] + "." + other_list.partition(".")[2])


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "cur_",
        "cur_.",
        "cur_WyJ4Il0",
        "cur_WyJ4Il0.",
        "cur_%%%.x",
        "garbage",
        "bm90IGEgY3Vyc29y",
        "eyJQSyI6IngifQ",
        "rcpt_WyJ4Il0." + "A" * 43,
        "cur_WyJ4Il0." + "A" * 43,
        "cur_WyJ4Il0=." + "A" * 43,
        "cur_ WyJ4Il0." + "A" * 43,
        "cur_WyJ4Il0." + "A" * 42 + "\u00e9",
        "cur_" + "A" * MAX_CURSOR_LENGTH,
    ],
    ids=lambda c: c[:30] or "empty",
)
def test_malformed_cursors_are_refused(cursor: str) -> None:
    refusal(cursor)


def test_a_cursor_made_by_hand_from_a_dynamodb_key_is_refused() -> None:
    # Given: the cursor format before issue 22, pointing a rooms list at the tenant's API keys
    key = {"PK": "TENANT#tenant-a", "SK": "KEY#key_0123456789abcdef"}
    old_style = base64.urlsafe_b64encode(json.dumps(key).encode()).decode().rstrip("=")

    # When / Then
    refusal(old_style, scope=ROOMS)
    refusal(CURSOR_PREFIX + old_style + "." + "A" * 43, scope=ROOMS)


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 32 bytes"):
        CursorSealer(b"short")


@pytest.mark.parametrize(
    "position",
    [(), ("",), ("x" * (MAX_POSITION_VALUE_LENGTH + 1),), ("a",) * (MAX_POSITION_VALUES + 1)],
    ids=["empty", "empty value", "long value", "too many values"],
)
def test_a_position_no_store_makes_is_not_sealed(position: Position) -> None:
    with pytest.raises(ValueError, match="position"):
        SEALER.seal(position, TENANT, ROOMS)


@settings(max_examples=300)
@given(st.text(max_size=MAX_CURSOR_LENGTH + 10))
def test_any_text_is_refused_with_a_400_and_nothing_else(cursor: str) -> None:
    refusal(cursor)


@settings(max_examples=300)
@given(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.lists(st.text(max_size=40), max_size=5),
    st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=43, max_size=43),
)
def test_any_position_with_any_signature_is_refused(position: Any, signature: str) -> None:
    text = json.dumps(position).encode()
    refusal(CURSOR_PREFIX + base64.urlsafe_b64encode(text).decode().rstrip("=") + "." + signature)


@settings(max_examples=300)
@given(st.integers(min_value=0), st.integers(min_value=0, max_value=255))
def test_any_one_byte_changed_in_a_cursor_makes_it_refused(index: int, replacement: int) -> None:
    # Given
    cursor = SEALER.seal(MESSAGE_POSITION, TENANT, MESSAGES)
    at = index % len(cursor)

    # When
    edited = cursor[:at] + chr(replacement) + cursor[at + 1 :]

    # Then
    if edited != cursor:
        refusal(edited)


# What a store's positions are made of: ids, ISO times and key prefixes, printable ASCII. (Text
# outside ASCII is escaped six characters a code unit, and four values of 60 such characters seal
# past MAX_CURSOR_LENGTH, which seal() refuses: no store makes them.)
POSITION_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=60)


@given(st.lists(POSITION_TEXT, min_size=1, max_size=MAX_POSITION_VALUES))
def test_any_position_a_store_could_make_round_trips(values: list[str]) -> None:
    # Given
    position = tuple(values)

    # When / Then
    assert SEALER.open(SEALER.seal(position, TENANT, MESSAGES), TENANT, MESSAGES) == position


def test_a_scope_is_canonical_and_unambiguous() -> None:
    # Filters are named in order whatever the call's order; unset ones are left out.
    assert (
        list_scope("messages", ROOM, until="u", eventType="e", since=None)
        == f"messages|{ROOM}|eventType=e|until=u"
    )
    # Ids and values are percent-encoded: no id or value reads as another list's parts.
    assert list_scope("x", "a|b") != list_scope("x", "a", "b")
    assert list_scope("x", "a=b") != list_scope("x", a="b")
    assert list_scope("x", eventType="a|since=b") != list_scope("x", eventType="a", since="b")
    assert list_scope("x", "\ud800") == "x|%ED%A0%80"  # any text a path may hold


def test_list_cursors_read_the_key_only_for_a_cursor_and_once() -> None:
    # Given
    reads: list[int] = []

    def key() -> bytes:
        reads.append(1)
        return KEY

    cursors = ListCursors(key)

    # When: a first page that is also the last
    assert cursors.open(None, TENANT, ROOMS) is None
    assert cursors.seal(None, TENANT, ROOMS) is None

    # Then: no key was read; the first cursor reads it, the next ones do not
    assert reads == []
    cursor = cursors.seal(ROOM_POSITION, TENANT, ROOMS)
    assert cursor is not None
    assert cursors.open(cursor, TENANT, ROOMS) == ROOM_POSITION
    assert len(reads) == 1
