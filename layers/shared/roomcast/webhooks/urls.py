"""Which push URLs roomcast will call: https only, never into private networks.

Checked at subscribe time and again before every delivery (a name can be re-pointed
after it was accepted). The checks work on the *resolved* addresses, so decimal, octal,
hex and IPv4-mapped spellings of a forbidden address are refused like the plain form, and
IPv6 addresses that carry an IPv4 address (6to4, Teredo, NAT64, ...) by what they carry.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from roomcast.platform import MAX_PUSH_URL_LENGTH, InvalidRequest

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Iterable[str]]

# Ranges the ipaddress flags do not all cover: shared address space (CGNAT), the AWS/GCP/Azure
# metadata and DNS helpers, IPv6 unique-local and the NAT64 prefix that can embed a private v4.
_EXTRA_FORBIDDEN_NETWORKS = tuple(
    ipaddress.ip_network(cidr)
    for cidr in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "169.254.0.0/16",
        "192.0.0.0/24",
        "198.18.0.0/15",
        "fc00::/7",
        "fe80::/10",
        "fd00:ec2::/32",
        "64:ff9b::/96",
        "64:ff9b:1::/48",
    )
)


class PushUrlRejected(ValueError):
    """The URL may not be used as a webhook destination; the message says why."""


class PushUrlUnresolvable(PushUrlRejected):
    """The host does not resolve (now): refused at subscribe time, retried at delivery time."""


@dataclass(frozen=True)
class PushUrlPolicy:
    allow_loopback: bool = False


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (IPv4 and IPv6)."""
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as error:
        raise PushUrlUnresolvable(f"host {host!r} does not resolve") from error
    return [str(info[4][0]) for info in infos]


def _unmapped(address: IPAddress) -> IPAddress:
    """An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 address itself: a socket connects to it."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # RFC 4291 section 2.5.5.1, deprecated
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix
_ISATAP_INTERFACE_IDS = (0x0000_5EFE, 0x0200_5EFE)  # RFC 5214: ...:0:5efe:a.b.c.d, ...:200:5efe:a.b.c.d


def _embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[str, tuple[ipaddress.IPv4Address, ...]] | None:
    """The IPv4 addresses an IPv6 address carries, and the name of its form; None for plain IPv6.

    Such an address reaches a host other than itself names (6to4 and Teredo relays, a NAT64
    gateway, an ISATAP router, a dual-stack host), so it is judged by what it carries too.
    """
    low32 = ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF)
    if address.sixtofour is not None:
        return "6to4", (address.sixtofour,)
    if address.teredo is not None:
        return "Teredo", address.teredo  # (server, client)
    if address in _NAT64:
        return "NAT64", (low32,)
    if address in _IPV4_TRANSLATED:
        return "IPv4-translated", (low32,)
    if address in _IPV4_COMPATIBLE and int(address) > 1:  # :: and ::1 are themselves
        return "IPv4-compatible", (low32,)
    if (int(address) >> 32) & 0xFFFF_FFFF in _ISATAP_INTERFACE_IDS:
        return "ISATAP", (low32,)
    return None


def _category(address: IPAddress, allow_loopback: bool) -> str | None:
    """The kind of a forbidden address, or None when it may be called."""
    if address.is_loopback:
        return None if allow_loopback else "loopback"
    if address.is_unspecified:
        return "unspecified"
    if address.is_multicast:
        return "multicast"
    if address.is_link_local:
        return "link-local (cloud metadata)"
    if any(address in network for network in _EXTRA_FORBIDDEN_NETWORKS):
        return "private or reserved"
    if address.is_private or address.is_reserved or not address.is_global:
        return "private or reserved"
    return None


def forbidden_reason(address: IPAddress, policy: PushUrlPolicy) -> str | None:
    """Why a resolved address may not be called ("a loopback address (127.0.0.1)"), or None.

    Local mode exempts true loopback only: 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. An IPv6
    form that carries an IPv4 address is refused whenever what it carries would be (loopback
    included, in every mode), and in local mode whatever it carries.
    """
    plain = _unmapped(address)
    if isinstance(plain, ipaddress.IPv6Address) and (embedded := _embedded_ipv4(plain)) is not None:
        form, carried = embedded
        for inner in carried:
            category = _category(inner, allow_loopback=False)
            if category is not None:
                return f"a {category} address ({inner}, carried by the {form} address {plain})"
        if policy.allow_loopback:
            carrying = " and ".join(str(inner) for inner in carried)
            return f"a {form} address ({plain}, carrying {carrying}; local mode exempts only true loopback)"
    category = _category(plain, policy.allow_loopback)
    return None if category is None else f"a {category} address ({plain})"


def _split(url: str) -> SplitResult:
    if len(url) > MAX_PUSH_URL_LENGTH:
        raise PushUrlRejected(f"push URL is longer than {MAX_PUSH_URL_LENGTH} characters")
    if any(character.isspace() or ord(character) < 0x20 or ord(character) == 0x7F for character in url):
        # urlsplit silently drops tabs and newlines: the URL checked must be the URL stored.
        raise PushUrlRejected("push URL may not contain whitespace or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as error:
        raise PushUrlRejected(f"push URL is not a valid URL: {error}") from error
    if parts.username is not None or parts.password is not None:
        raise PushUrlRejected("push URL may not carry user:password credentials")
    if not parts.hostname:
        raise PushUrlRejected("push URL has no host")
    if parts.port == 0:
        raise PushUrlRejected("push URL port 0 is not a port")
    if parts.fragment or url.endswith("#"):
        raise PushUrlRejected("push URL may not have a #fragment")
    return parts


def _literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def check_push_url(url: str, policy: PushUrlPolicy, resolve: Resolver = system_resolver) -> list[str]:
    """Raise PushUrlRejected unless ``url`` is a safe webhook destination; return the addresses it
    resolves to."""
    parts = _split(url)
    host = parts.hostname or ""
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    literal = _literal_address(host)
    if scheme == "http":
        if not policy.allow_loopback:
            raise PushUrlRejected("push URL must use https")
    elif scheme != "https":
        raise PushUrlRejected("push URL must use https")
    addresses = [str(literal)] if literal is not None else list(resolve(host, port))
    if not addresses:
        raise PushUrlUnresolvable(f"host {host!r} does not resolve")
    for text in addresses:
        address = _unmapped(ipaddress.ip_address(text.split("%", 1)[0]))
        reason = forbidden_reason(address, policy)
        if reason is not None:
            raise PushUrlRejected(f"push URL resolves to {reason}, which is refused")
        if scheme == "http" and not address.is_loopback:
            raise PushUrlRejected(
                "push URL must use https (plain http is allowed only to loopback in local mode)"
            )
    return addresses


def check_requested_url(
    url: str, policy: PushUrlPolicy, field: str, resolve: Resolver = system_resolver
) -> None:
    """``check_push_url`` for a URL a request gives: a refusal is the API's 422
    ``invalid_push_url`` naming ``field`` (``body.pushUrl``, ``body.notify.webhookUrl``)."""
    try:
        check_push_url(url, policy, resolve)
    except PushUrlRejected as error:
        raise InvalidRequest(
            str(error),
            code="invalid_push_url",
            details=[{"field": field, "problem": str(error), "type": "invalid_push_url"}],
        ) from error
