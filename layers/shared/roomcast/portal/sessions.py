"""Portal sessions in DynamoDB: what a portal token reaches, found by the token's hash (the
authorizer) and by the session's id (the functions, each request; the portal page's host).

| item                       | PK                              | SK              |
| -------------------------- | ------------------------------- | --------------- |
| the session                | ``PORTALSESSION#<sessionId>``   | ``PORTALSESSION`` |
| its token, by its hash     | ``PORTALTOKEN#<sha256 of token>`` | ``PORTALTOKEN`` |

Both are written in one transaction, each in a partition of its own (a random id: no two tenants
ever write one). A revocation marks the session; the token's item stays until DynamoDB's TTL
removes both, a week after the session expires, so that until then a revoked or expired token
reaches the function and is answered 401 there, not the gateway's 403 for an unknown credential.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any, Final

from roomcast.platform import NotFound, TableAccess, hash_api_key, items, key
from roomcast.portal.model import PortalReach

PORTAL_TOKEN_PREFIX: Final = "rcp_"  # noqa: S105  # a prefix, not a secret
SESSION_ID_PREFIX: Final = "ps_"
SESSION_ID_PATTERN: Final = r"^ps_[0-9a-f]{32}$"
_SESSION_ID: Final = re.compile(SESSION_ID_PATTERN)
_SESSION_SORT_KEY: Final = "PORTALSESSION"
_TOKEN_SORT_KEY: Final = "PORTALTOKEN"  # noqa: S105  # a sort key, not a secret
KEPT_AFTER_EXPIRY_SECONDS: Final = 7 * 86_400


def new_session_id() -> str:
    return SESSION_ID_PREFIX + secrets.token_hex(16)


def new_portal_token() -> str:
    return PORTAL_TOKEN_PREFIX + secrets.token_urlsafe(32)


def is_session_id(text: str) -> bool:
    return bool(_SESSION_ID.match(text))


@dataclass(frozen=True)
class PortalSession:
    """A portal session as stored: its reach, whose it is, when made, whether revoked."""

    tenant_id: str
    reach: PortalReach
    created_at: str
    revoked_at: str | None = None


@dataclass(frozen=True)
class TokenOwner:
    tenant_id: str
    session_id: str


class PortalSessionTable(TableAccess):
    def create(self, session: PortalSession, token: str) -> None:
        reach = session.reach
        ttl = reach.expires_at_ms // 1000 + KEPT_AFTER_EXPIRY_SECONDS
        session_item: dict[str, Any] = {
            "PK": _session_partition(reach.session_id),
            "SK": _SESSION_SORT_KEY,
            "entity": "portalSession",
            "tenantId": session.tenant_id,
            "consumerId": reach.consumer_id,
            "rooms": list(reach.rooms),
            "readOnly": reach.read_only,
            "expiresAtMs": reach.expires_at_ms,
            "createdAt": session.created_at,
            "ttl": ttl,
        }
        if reach.event_types is not None:
            session_item["eventTypes"] = list(reach.event_types)
        token_item = {
            "PK": _token_partition(hash_api_key(token)),
            "SK": _TOKEN_SORT_KEY,
            "entity": "portalToken",
            "tenantId": session.tenant_id,
            "sessionId": reach.session_id,
            "ttl": ttl,
        }
        self._client.transact_write_items(
            TransactItems=[
                {
                    "Put": {
                        "TableName": self._table_name,
                        "Item": items.to_attributes(item),
                        "ConditionExpression": "attribute_not_exists(PK)",
                    }
                }
                for item in (session_item, token_item)
            ]
        )

    def token_owner(self, token_hash: str) -> TokenOwner | None:
        """Whose the token with this hash is (the authorizer's one read), or None."""
        found = self._client.get_item(
            TableName=self._table_name,
            Key=key(_token_partition(token_hash), _TOKEN_SORT_KEY),
            ProjectionExpression="tenantId, sessionId",
        ).get("Item")
        if not found:
            return None
        return TokenOwner(found["tenantId"]["S"], found["sessionId"]["S"])

    def get(self, tenant_id: str | None, session_id: str) -> PortalSession | None:
        """The session with this id (of this tenant, when one is given), revoked or not; None when
        there is none."""
        if not is_session_id(session_id):
            return None
        found = self._client.get_item(
            TableName=self._table_name,
            Key=key(_session_partition(session_id), _SESSION_SORT_KEY),
            ConsistentRead=True,
        ).get("Item")
        if not found:
            return None
        item = items.from_attributes(found)
        if tenant_id is not None and item.get("tenantId") != tenant_id:
            return None
        event_types = item.get("eventTypes")
        reach = PortalReach(
            session_id=session_id,
            consumer_id=str(item["consumerId"]),
            rooms=tuple(str(room) for room in item.get("rooms") or ()),
            event_types=None if event_types is None else tuple(str(name) for name in event_types),
            read_only=bool(item.get("readOnly")),
            expires_at_ms=int(item["expiresAtMs"]),
        )
        revoked = item.get("revokedAt")
        return PortalSession(
            str(item["tenantId"]), reach, str(item["createdAt"]), None if revoked is None else str(revoked)
        )

    def reach(self, tenant_id: str, session_id: str) -> PortalReach | None:
        """What a live (not revoked) session of this tenant reaches; None otherwise (expiry is the
        caller's to check, with its clock)."""
        session = self.get(tenant_id, session_id)
        if session is None or session.revoked_at is not None:
            return None
        return session.reach

    def revoke(self, tenant_id: str, session_id: str, revoked_at: str) -> None:
        """Mark the tenant's session revoked (again: no change): NotFound when it has none such."""
        if not is_session_id(session_id):
            raise NotFound(f"portal session {session_id[:80]} not found")
        done = self._update_if(
            key(_session_partition(session_id), _SESSION_SORT_KEY),
            UpdateExpression="SET revokedAt = if_not_exists(revokedAt, :at)",
            ConditionExpression="tenantId = :tenant",
            ExpressionAttributeValues={":at": {"S": revoked_at}, ":tenant": {"S": tenant_id}},
        )
        if done is None:
            raise NotFound(f"portal session {session_id} not found")


def _session_partition(session_id: str) -> str:
    return f"PORTALSESSION#{session_id}"


def _token_partition(token_hash: str) -> str:
    return f"PORTALTOKEN#{token_hash}"
