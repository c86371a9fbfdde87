"""The access rule (roomcast.access.rule) and the gate's route matching: pure, no AWS."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from roomcast.access import (
    Caller,
    PortalUse,
    RouteTable,
    Scope,
    access,
    caller_from_context,
    refusal,
    to_context,
)
from roomcast.access.gate import AccessGate
from roomcast.portal import PortalReach

ROOT = Path(__file__).resolve().parents[2]
ROOM = "room_" + "a" * 32
OTHER_ROOM = "room_" + "b" * 32
REACH = PortalReach("ps_" + "0" * 32, "acme", (ROOM,), ("order.created",), False, 10_000)


@pytest.mark.parametrize(
    ("scopes", "route", "status"),
    [
        ({Scope.ADMIN}, access(Scope.MANAGE), None),
        ({Scope.PUBLISH}, access(Scope.MANAGE), 403),
        ({Scope.PUBLISH}, access(Scope.PUBLISH), None),
        ({Scope.READ}, access(Scope.READ, Scope.MANAGE), None),
        ({Scope.MANAGE}, access(Scope.ADMIN), 403),
        (set(), access(Scope.READ), 403),
    ],
)
def test_a_key_passes_with_any_of_the_routes_scopes_or_admin(
    scopes: set[Scope], route: object, status: int | None
) -> None:
    refused = refusal(Caller("t", scopes=frozenset(scopes)), route, "GET", f"/rooms/{ROOM}", ROOM)  # type: ignore[arg-type]
    assert (refused.status if refused else None) == status


def test_a_missing_scope_is_named_and_a_room_outside_the_list_is_not_found() -> None:
    publisher = Caller("t", scopes=frozenset({Scope.PUBLISH}), rooms=frozenset({ROOM}))
    missing = refusal(publisher, access(Scope.MANAGE), "DELETE", f"/rooms/{ROOM}", ROOM)
    assert missing is not None
    assert (missing.status, missing.code) == (403, "missing_scope")
    assert "manage" in missing.message
    elsewhere = refusal(publisher, access(Scope.PUBLISH), "POST", f"/rooms/{OTHER_ROOM}/messages", OTHER_ROOM)
    assert elsewhere is not None
    assert (elsewhere.status, OTHER_ROOM in elsewhere.message) == (404, True)
    tenant_wide = refusal(publisher, access(Scope.PUBLISH), "GET", "/metrics", None)
    assert tenant_wide is not None
    assert tenant_wide.code == "room_limited"
    assert refusal(publisher, access(Scope.PUBLISH, beyond_rooms=True), "GET", "/rooms", None) is None


def test_a_portal_session_reaches_only_portal_routes_on_its_rooms() -> None:
    portal = Caller("t", portal_session_id=REACH.session_id)
    never = refusal(portal, access(Scope.MANAGE), "GET", "/api-keys", None, REACH)
    assert never is not None
    assert never.status == 404
    assert refusal(portal, access(Scope.MANAGE, portal=PortalUse.WRITE), "POST", "/x", ROOM, REACH) is None
    other = refusal(portal, access(Scope.MANAGE, portal=PortalUse.READ), "GET", "/x", OTHER_ROOM, REACH)
    assert other is not None
    assert other.status == 404
    read_only = PortalReach(REACH.session_id, "acme", (ROOM,), None, True, 10_000)
    written = refusal(portal, access(Scope.MANAGE, portal=PortalUse.WRITE), "PATCH", "/x", ROOM, read_only)
    assert written is not None
    assert (written.status, written.code) == (403, "read_only")
    assert refusal(portal, access(Scope.MANAGE, portal=PortalUse.READ), "GET", "/x", ROOM, read_only) is None


def test_the_context_round_trips_and_a_context_before_scopes_is_an_admin_key() -> None:
    key = Caller("t", "key_1", frozenset({Scope.PUBLISH, Scope.READ}), frozenset({ROOM}))
    assert caller_from_context(to_context(key)) == key
    assert caller_from_context({"tenantId": "t", "keyId": "key_1"}) == Caller("t", "key_1")
    assert caller_from_context({"tenantId": "t", "keyId": "k", "scopes": "root,publish"}) == Caller(
        "t", "k", frozenset({Scope.PUBLISH})
    )  # an unknown scope name gives nothing
    portal = Caller("t", portal_session_id=REACH.session_id)
    assert caller_from_context(to_context(portal)) == portal


def test_the_table_matches_a_request_as_the_resolver_does() -> None:
    table = RouteTable()
    table.declare("GET", "/rooms/<roomId>", access(Scope.READ))
    table.declare("GET", "/rooms/<roomId>/subscriptions/<subscriptionId>", access(Scope.READ))
    matched = table.match("GET", "/rooms/order%3A1/subscriptions/sub_1")
    assert matched is not None
    assert (matched.room_id, matched.subscription_id) == ("order:1", "sub_1")
    assert table.match("POST", "/rooms/r") is None
    assert table.match("GET", "/rooms/r/") is None


def _event(context: Any, method: str, path: str) -> dict[str, Any]:
    return {
        "rawPath": path,
        "requestContext": {"http": {"method": method}, "authorizer": {"lambda": context}},
    }


def test_the_gate_answers_a_portal_token_404_where_no_route_takes_one_and_401_once_expired() -> None:
    table = RouteTable()
    table.declare("GET", "/rooms/<roomId>/subscriptions", access(Scope.READ, portal=PortalUse.READ))
    portal = to_context(Caller("t", portal_session_id=REACH.session_id))

    no_sessions = AccessGate(routes=table).check(_event(dict(portal), "GET", f"/rooms/{ROOM}/subscriptions"))
    assert no_sessions is not None
    assert no_sessions.status == 404

    class Sessions:
        def reach(self, tenant_id: str, session_id: str) -> PortalReach | None:
            return REACH if tenant_id == "t" else None

    gate = AccessGate(sessions=lambda: Sessions(), routes=table, clock=lambda: 5_000)  # type: ignore[arg-type,return-value]
    context = dict(portal)
    assert gate.check(_event(context, "GET", f"/rooms/{ROOM}/subscriptions")) is None
    assert context["portalReach"]["consumerId"] == "acme"  # type: ignore[index]
    late = AccessGate(sessions=lambda: Sessions(), routes=table, clock=lambda: 10_000)  # type: ignore[arg-type,return-value]
    expired = late.check(_event(dict(portal), "GET", f"/rooms/{ROOM}/subscriptions"))
    assert expired is not None
    assert (expired.status, expired.code) == (401, "session_expired")


def test_every_route_the_api_functions_serve_is_declared_with_its_access() -> None:
    for function in ("management", "publish", "pull"):
        sys.path.insert(0, str(ROOT / "functions" / function))
    import management_api.handler
    import publish_api.handler
    import pull_api.handler
    from roomcast.access import ROUTES

    declared = {(route.method, route.template) for route in ROUTES.routes()}
    for module in (management_api.handler, publish_api.handler, pull_api.handler):
        app = module.app
        served = {(route.method, route.path) for route in app._static_routes + app._dynamic_routes}
        assert served <= declared
