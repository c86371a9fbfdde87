"""/portal-sessions: a tenant opens a portal session for one of its customers and revokes it;
/portal-session: the session a portal token belongs to (what the portal page shows first)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from management_api.common import no_content
from management_api.dependencies import PortalSessions
from management_api.portal_sessions.models import (
    PortalBrand,
    PortalSessionCreate,
    PortalSessionCreated,
    PortalSessionView,
    PortalSettingsBody,
    PortalSettingsView,
)
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Access, Origin, Routes, Tenant
from roomcast.platform import NotFound, iso_from_ms
from roomcast.portal import PortalReach, PortalSettings

routes = Routes("portal")
SessionId = Annotated[
    str,
    Path(
        description="The session's id (`ps_` and 32 hex digits).",
        examples=["ps_9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"],
    ),
]
PORTAL_PATH = "/portal/"


@routes.post(
    "/portal-sessions",
    "createPortalSession",
    "The session, its token and the portal's URL (shown once)",
    400,
    415,
    status=201,
    access=access(Scope.ADMIN),
)
def create_portal_session(
    body: PortalSessionCreate, tenant: Tenant, origin: Origin, service: PortalSessions
) -> PortalSessionCreated:
    """Open a portal session

    A short-lived token (60 s to a day) for one of your customers (`consumerId`): with it, the
    portal page at `url` — or any client, as `Authorization: Bearer <token>` — lists, creates
    (PUSH only) and changes that consumer's subscriptions on `rooms` (for `eventTypes`, when given),
    rotates their signing secrets, reads their deliveries, attempts and metrics, retries and
    replays. Everything else — other consumers' subscriptions, rooms' settings, keys, the catalog,
    another tenant — is not found (404) for it. Only an `admin` key opens sessions.
    """
    session, token = service.open(
        tenant, body.consumerId, list(body.rooms), body.eventTypes, body.readOnly, body.expiresInSeconds
    )
    view = _view(session.reach)
    return PortalSessionCreated(
        **view.model_dump(), token=token, url=f"{origin}{PORTAL_PATH}{session.reach.session_id}#{token}"
    )


@routes.delete(
    "/portal-sessions/<sessionId>",
    "revokePortalSession",
    "Revoked",
    404,
    status=204,
    access=access(Scope.ADMIN),
)
def revoke_portal_session(sessionId: SessionId, tenant: Tenant, service: PortalSessions) -> Response[None]:
    """Revoke a portal session

    Its token answers 401 from the next request on (each request reads the session). Revoking it
    again changes nothing; another tenant's session is not found.
    """
    service.revoke(tenant, sessionId)
    return no_content()


@routes.get(
    "/portal-session",
    "getPortalSession",
    "The session",
    404,
    access=access(Scope.ADMIN, portal=PortalUse.READ),
)
def get_portal_session(caller: Access, service: PortalSessions) -> PortalSessionView:
    """Read the portal session of this token

    Called with a portal token: the session's consumer, rooms, event types, whether it is
    read-only, when it expires, and the portal's brand (your portal settings). With an API key
    there is no session: 404.
    """
    if caller.reach is None:
        raise NotFound("this request was not made with a portal token")
    settings = service.settings_of(caller.caller.tenant_id)
    brand = PortalBrand(title=settings.title, logoUrl=settings.logo_url, accentColor=settings.accent_color)
    return _view(caller.reach).model_copy(update={"brand": brand})


@routes.get(
    "/portal-settings",
    "getPortalSettings",
    "The settings",
    access=access(Scope.ADMIN, Scope.READ, Scope.MANAGE),
)
def get_portal_settings(tenant: Tenant, service: PortalSessions) -> PortalSettingsView:
    """Read your portal settings

    How the portal page looks to your customers and which origins may embed it (the defaults until
    you set them).
    """
    return _settings_view(service.settings_of(tenant))


@routes.put(
    "/portal-settings", "putPortalSettings", "The settings as saved", 400, 415, access=access(Scope.ADMIN)
)
def put_portal_settings(
    body: PortalSettingsBody, tenant: Tenant, service: PortalSessions
) -> PortalSettingsView:
    """Set your portal settings

    The portal page's title, logo (an https image) and accent colour, and `frameAncestors`: the
    origins whose pages may embed it in an iframe (its `Content-Security-Policy`); any other page
    cannot frame it. Fields not given take their defaults. Only an `admin` key sets them.
    """
    settings = PortalSettings(body.title, body.logoUrl, body.accentColor.lower(), tuple(body.frameAncestors))
    service.save_settings(tenant, settings)
    return _settings_view(settings)


def _settings_view(settings: PortalSettings) -> PortalSettingsView:
    return PortalSettingsView(
        title=settings.title,
        logoUrl=settings.logo_url,
        accentColor=settings.accent_color,
        frameAncestors=list(settings.frame_ancestors),
    )


def _view(reach: PortalReach) -> PortalSessionView:
    return PortalSessionView(
        sessionId=reach.session_id,
        consumerId=reach.consumer_id,
        rooms=list(reach.rooms),
        eventTypes=None if reach.event_types is None else list(reach.event_types),
        readOnly=reach.read_only,
        expiresAt=iso_from_ms(reach.expires_at_ms),
    )
