"""The customers' portal page's policy (docs/portal.md, ADR 0048): the console's, with the origins
its tenant lets frame it and its logo's origin, read from the session and the tenant's settings."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from roomcast.portal import PortalSessionTable, PortalSettingsTable

PORTAL_PAGE = "portal.html"
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?")  # all a policy's source may hold of a logo's host


@cache
def portal_store() -> tuple[PortalSessionTable, PortalSettingsTable]:
    from roomcast.platform import load_settings
    from roomcast.portal import PortalSessionTable, PortalSettingsTable

    table = load_settings().table_name
    return PortalSessionTable(table), PortalSettingsTable(table)


def portal_policy(session_id: str) -> tuple[str, bool]:
    """The portal page's Content-Security-Policy for a session: the console's, with the tenant's
    logo's origin among the images and its listed origins as ``frame-ancestors`` (none: 'none');
    and whether any origin may frame it. An unknown session gets the strictest."""
    from roomcast.portal import is_session_id

    settings = None
    if is_session_id(session_id):
        sessions, portal_settings = portal_store()
        session = sessions.get(None, session_id)
        settings = portal_settings.get(session.tenant_id) if session is not None else None
    ancestors = " ".join(settings.frame_ancestors) if settings and settings.frame_ancestors else "'none'"
    try:
        logo = urlsplit(settings.logo_url) if settings and settings.logo_url else None
    except ValueError:  # not a URL Python can read: no logo origin in the policy
        logo = None
    safe_host = logo is not None and logo.scheme == "https" and _HOST.fullmatch(logo.netloc) is not None
    images = f"'self' https://{logo.netloc}" if logo is not None and safe_host else "'self'"
    policy = (
        f"default-src 'self'; script-src 'self'; style-src 'self'; img-src {images}; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
        f"frame-ancestors {ancestors}"
    )
    return policy, ancestors != "'none'"


def portal_headers(session_id: str, console_headers: dict[str, str]) -> dict[str, str]:
    """The console's security headers with the session's policy; a page some origin may frame goes
    without X-Frame-Options (which cannot list origins) and Cross-Origin-Opener-Policy."""
    policy, framed = portal_policy(session_id)
    headers = {**console_headers, "Content-Security-Policy": policy, "Cache-Control": "no-store"}
    if framed:
        headers.pop("X-Frame-Options", None)
        headers.pop("Cross-Origin-Opener-Policy", None)
    return headers
