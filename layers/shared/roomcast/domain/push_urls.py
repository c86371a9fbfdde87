"""Which push URLs roomcast will call: https only, never into private networks.

Checked at subscribe time and again before every delivery (a name can be re-pointed
after it was accepted). The checks work on the *resolved* addresses, so decimal, octal,
hex and IPv4-mapped spellings of a forbidden address are refused like the plain form.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from roomcast.domain.limits import MAX_PUSH_URL_LENGTH

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
    """The URL may not be used as a push target; the message says why."""


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
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def forbidden_reason(address: IPAddress, policy: PushUrlPolicy) -> str | None:
    """Why a resolved address may not be called, or None when it may."""
    plain = _unmapped(address)
    if plain.is_loopback:
        return None if policy.allow_loopback else "loopback"
    if plain.is_unspecified:
        return "unspecified"
    if plain.is_multicast:
        return "multicast"
    if plain.is_link_local:
        return "link-local (cloud metadata)"
    if any(plain in network for network in _EXTRA_FORBIDDEN_NETWORKS):
        return "private or reserved"
    if plain.is_private or plain.is_reserved or not plain.is_global:
        return "private or reserved"
    return None


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
    """Raise PushUrlRejected unless ``url`` is a safe push target; return the addresses it resolves to."""
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
            raise PushUrlRejected(f"push URL resolves to a {reason} address ({address}), which is refused")
        if scheme == "http" and not address.is_loopback:
            raise PushUrlRejected(
                "push URL must use https (plain http is allowed only to loopback in local mode)"
            )
    return addresses
