"""List cursors: the opaque token a list answers as ``nextCursor`` and takes back as ``cursor``.

A cursor carries a store's position (``roomcast.platform.pages``: the varying values of the last key of
a page, e.g. a room id) and nothing else. It is sealed like a PULL receipt
(``roomcast.pull.receipts``): an HMAC-SHA256 over a version, the tenant and the list's *scope*
(both signed, not carried) and the position, with a key derived from the stack's receipt key. The
scope names the list, its path ids and its filters, so a cursor edited, made up, or given back to
another list, room, subscription, filter or tenant is refused (``400 invalid_cursor``), and
nothing in it is decoded before its MAC matches (docs/decisions/0027-sealed-list-cursors.md).

``cur_`` + base64url(compact JSON array of the position's strings) + ``.`` + base64url(HMAC).
The page size is not bound: a client may change ``limit`` between pages.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote

from roomcast.platform import MAX_POSITION_VALUE_LENGTH, Position, invalid_cursor

CURSOR_PREFIX: Final = "cur_"
# The `cursor` query parameter's bound (documented in docs/limits.md): far above what is sealed
# (135 characters for a room's messages, the longest).
MAX_CURSOR_LENGTH: Final = 1024
MAX_POSITION_VALUES: Final = 4
# The key must be at least as long as the hash's output to give HMAC-SHA256 its full strength.
MIN_KEY_BYTES: Final = 32
_VERSION: Final = "v1"
_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]+")
_SIGNATURE_LENGTH: Final = 43  # 32 bytes, base64url without padding


def list_scope(list_name: str, *ids: str, **filters: str | None) -> str:
    """The canonical name of one list of one tenant: the list, its path ids in order, then its
    filters that are set, by name (``messages|room_…|eventType=order.created|since=…``). Ids and
    values are percent-encoded, so no two different lists share a scope."""
    parts = [list_name, *(_quoted(i) for i in ids)]
    parts += [f"{name}={_quoted(value)}" for name, value in sorted(filters.items()) if value is not None]
    return "|".join(parts)


def _quoted(text: str) -> str:
    # surrogatepass: a path id is any text the client sent, a lone surrogate included.
    return quote(text, safe="", errors="surrogatepass")


def _well_formed(position: object) -> bool:
    return (
        isinstance(position, list | tuple)
        and 1 <= len(position) <= MAX_POSITION_VALUES
        and all(isinstance(v, str) and 1 <= len(v) <= MAX_POSITION_VALUE_LENGTH for v in position)
    )


class CursorSealer:
    """Seals and opens the list cursors of one stack (one key)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_BYTES:
            raise ValueError(f"a cursor key needs at least {MIN_KEY_BYTES} bytes, not {len(key)}")
        self._key = key

    def _signature(self, tenant_id: str, scope: str, fields: str) -> str:
        # A JSON array: no tenant, scope and fields run into another's (all of them vary).
        message = json.dumps([_VERSION, tenant_id, scope, fields], separators=(",", ":")).encode()
        digest = hmac.new(self._key, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def seal(self, position: Position, tenant_id: str, scope: str) -> str:
        """The cursor of ``position`` in the list ``scope`` of ``tenant_id``."""
        if not _well_formed(position):
            raise ValueError(f"not a position a cursor can carry: {position!r:.200}")
        text = json.dumps(list(position), separators=(",", ":")).encode()
        fields = base64.urlsafe_b64encode(text).decode().rstrip("=")
        cursor = f"{CURSOR_PREFIX}{fields}.{self._signature(tenant_id, scope, fields)}"
        if len(cursor) > MAX_CURSOR_LENGTH:
            raise ValueError(f"a position sealed into {len(cursor)} characters, over {MAX_CURSOR_LENGTH}")
        return cursor

    def open(self, cursor: str, tenant_id: str, scope: str) -> Position:
        """The position ``cursor`` holds, if this stack sealed it for this tenant and this list
        (scope); InvalidRequest (400 ``invalid_cursor``) otherwise. The MAC is checked (in
        constant time) before anything of the cursor is decoded."""
        if (
            not isinstance(cursor, str)
            or len(cursor) > MAX_CURSOR_LENGTH
            or not cursor.startswith(CURSOR_PREFIX)
        ):
            raise invalid_cursor()
        fields, dot, signature = cursor[len(CURSOR_PREFIX) :].partition(".")
        if (
            not dot
            or len(signature) != _SIGNATURE_LENGTH
            or not _BASE64URL.fullmatch(fields)
            or not _BASE64URL.fullmatch(signature)
        ):
            raise invalid_cursor()
        expected = self._signature(tenant_id, scope, fields)
        if not hmac.compare_digest(signature.encode("ascii"), expected.encode("ascii")):
            raise invalid_cursor()
        try:
            position = json.loads(base64.urlsafe_b64decode(fields + "=" * (-len(fields) % 4)))
        except (ValueError, binascii.Error) as error:
            raise invalid_cursor() from error
        if not _well_formed(position):
            raise invalid_cursor()
        return tuple(position)


class ListCursors:
    """The cursors of list routes: no cursor in or out is None, and the sealer (its key read from
    Secrets Manager) is made on the first cursor, so a list of one page never reads the key."""

    def __init__(self, key: Callable[[], bytes]) -> None:
        self._key = key
        self._sealer: CursorSealer | None = None

    def _made(self) -> CursorSealer:
        if self._sealer is None:
            self._sealer = CursorSealer(self._key())
        return self._sealer

    def open(self, cursor: str | None, tenant_id: str, scope: str) -> Position | None:
        """Where to start: None for the first page, else the position of a cursor of this list
        (one longer than any this stack seals is refused before the key is read)."""
        if cursor is not None and len(cursor) > MAX_CURSOR_LENGTH:
            raise invalid_cursor()
        return None if cursor is None else self._made().open(cursor, tenant_id, scope)

    def seal(self, position: Position | None, tenant_id: str, scope: str) -> str | None:
        """The ``nextCursor`` of a page: None on the last one."""
        return None if position is None else self._made().seal(position, tenant_id, scope)

    def of(self, tenant_id: str) -> TenantCursors:
        """These cursors as the calling tenant's (what a list route is given)."""
        return TenantCursors(self, tenant_id)


@dataclass(frozen=True)
class TenantCursors:
    """The list cursors of one request: the stack's cursors and the caller's tenant, whose lists
    alone its cursors open."""

    cursors: ListCursors
    tenant_id: str

    def open(self, cursor: str | None, scope: str) -> Position | None:
        """Where to start: None for the first page, else the position of a cursor of this list."""
        return self.cursors.open(cursor, self.tenant_id, scope)

    def seal(self, position: Position | None, scope: str) -> str | None:
        """The ``nextCursor`` of a page: None on the last one."""
        return self.cursors.seal(position, self.tenant_id, scope)
