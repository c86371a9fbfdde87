"""Which push URLs roomcast will call: https only, never into private networks."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import pytest
from hypothesis import given, strategies as st

from roomcast.platform.limits import MAX_PUSH_URL_LENGTH
from roomcast.webhooks.urls import (
    PushUrlPolicy,
    PushUrlRejected,
    Resolver,
    check_push_url,
    system_resolver,
)

pytestmark = pytest.mark.security  # the security regression suite: make test-security

PUBLIC_V4 = "93.184.216.34"
PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946"
STRICT = PushUrlPolicy(allow_loopback=False)
LOCAL = PushUrlPolicy(allow_loopback=True)


def resolving_to(*addresses: str) -> Resolver:
    """A fake resolver: every host resolves to ``addresses``."""

    def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


def never_called(host: str, port: int) -> list[str]:
    raise AssertionError(f"the resolver was asked about {host}:{port}")


def not_resolving(host: str, port: int) -> list[str]:
    raise PushUrlRejected(f"host {host!r} does not resolve")


# -- accepted -------------------------------------------------------------------------------------


def test_https_to_a_public_ipv4_literal_is_accepted_without_resolving() -> None:
    # When
    addresses = check_push_url(f"https://{PUBLIC_V4}/hooks", STRICT, never_called)

    # Then
    assert addresses == [PUBLIC_V4]


def test_https_to_a_public_ipv6_literal_is_accepted() -> None:
    # When
    addresses = check_push_url(f"https://[{PUBLIC_V6}]:8443/hooks", STRICT, never_called)

    # Then
    assert addresses == [PUBLIC_V6]


def test_https_to_a_hostname_resolving_to_public_addresses_is_accepted() -> None:
    # Given
    resolve = resolving_to(PUBLIC_V4, PUBLIC_V6)

    # When
    addresses = check_push_url("https://hooks.example.com/in", STRICT, resolve)

    # Then
    assert addresses == [PUBLIC_V4, PUBLIC_V6]


@pytest.mark.parametrize(
    ("url", "expected_port"),
    [
        ("https://hooks.example.com/in", 443),
        ("https://hooks.example.com:8443/in", 8443),
    ],
)
def test_resolver_is_asked_for_the_host_and_the_port_of_the_url(url: str, expected_port: int) -> None:
    # Given
    asked: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return [PUBLIC_V4]

    # When
    check_push_url(url, STRICT, resolve)

    # Then
    assert asked == [("hooks.example.com", expected_port)]


def test_scheme_is_case_insensitive() -> None:
    # When
    addresses = check_push_url(f"HTTPS://{PUBLIC_V4}/", STRICT, never_called)

    # Then
    assert addresses == [PUBLIC_V4]


def test_url_of_exactly_the_maximum_length_is_accepted() -> None:
    # Given
    prefix = f"https://{PUBLIC_V4}/"
    url = prefix + "a" * (MAX_PUSH_URL_LENGTH - len(prefix))

    # When
    addresses = check_push_url(url, STRICT, never_called)

    # Then
    assert len(url) == MAX_PUSH_URL_LENGTH
    assert addresses == [PUBLIC_V4]


# -- scheme ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "ftp://93.184.216.34/",
        "gopher://93.184.216.34/",
        "ws://127.0.0.1/",
        "javascript://127.0.0.1/",
    ],
)
def test_scheme_other_than_http_or_https_is_refused_even_in_local_mode(url: str) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(url, LOCAL, resolving_to(PUBLIC_V4))

    # Then
    assert "must use https" in str(refused.value)


@pytest.mark.parametrize("url", [f"http://{PUBLIC_V4}/", "http://127.0.0.1:8080/"])
def test_plain_http_is_refused_outside_local_mode(url: str) -> None:
    # When
    with pytest.raises(PushUrlRejected, match="must use https"):
        check_push_url(url, STRICT, never_called)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8080/hook", "127.0.0.1"),
        ("http://127.8.9.10/hook", "127.8.9.10"),
        ("http://[::1]:8080/hook", "::1"),
        ("http://[::ffff:127.0.0.1]/hook", "::ffff:127.0.0.1"),
    ],
)
def test_plain_http_to_a_loopback_literal_is_accepted_in_local_mode(url: str, expected: str) -> None:
    # When
    addresses = check_push_url(url, LOCAL, never_called)

    # Then
    assert addresses == [expected]


def test_plain_http_to_a_hostname_resolving_to_loopback_is_accepted_in_local_mode() -> None:
    # When
    addresses = check_push_url("http://receiver.local:9000/", LOCAL, resolving_to("127.0.0.1"))

    # Then
    assert addresses == ["127.0.0.1"]


def test_plain_http_to_a_public_address_is_refused_even_in_local_mode() -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(f"http://{PUBLIC_V4}/", LOCAL, never_called)

    # Then
    assert "https" in str(refused.value)
    assert "loopback" in str(refused.value)


def test_plain_http_is_refused_in_local_mode_when_one_of_the_addresses_is_not_loopback() -> None:
    # When
    with pytest.raises(PushUrlRejected, match="https"):
        check_push_url("http://receiver.local/", LOCAL, resolving_to("127.0.0.1", PUBLIC_V4))


# -- URL shape ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        f"https://user:secret@{PUBLIC_V4}/",
        f"https://user@{PUBLIC_V4}/",
        f"https://:secret@{PUBLIC_V4}/",
    ],
)
def test_credentials_in_the_url_are_refused(url: str) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(url, STRICT, never_called)

    # Then
    assert "credentials" in str(refused.value)


def test_fragment_is_refused() -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(f"https://{PUBLIC_V4}/hooks#section", STRICT, never_called)

    # Then
    assert "fragment" in str(refused.value)


def test_url_longer_than_the_maximum_is_refused() -> None:
    # Given
    prefix = f"https://{PUBLIC_V4}/"
    url = prefix + "a" * (MAX_PUSH_URL_LENGTH + 1 - len(prefix))

    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(url, STRICT, never_called)

    # Then
    assert "longer than" in str(refused.value)
    assert str(MAX_PUSH_URL_LENGTH) in str(refused.value)


@pytest.mark.parametrize(
    "url", ["https:///hooks", "https://:443/hooks", "file:///etc/passwd", "93.184.216.34/x"]
)
def test_url_without_a_host_is_refused(url: str) -> None:
    # When
    with pytest.raises(PushUrlRejected, match="no host"):
        check_push_url(url, STRICT, never_called)


def test_port_out_of_range_is_refused() -> None:
    # When
    with pytest.raises(PushUrlRejected, match="not a valid URL"):
        check_push_url(f"https://{PUBLIC_V4}:99999/", STRICT, never_called)


# -- forbidden addresses --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("10.0.0.1", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "private"),
        ("0.0.0.0", "unspecified"),  # noqa: S104 - an address refused, nothing is bound
        ("224.0.0.1", "multicast"),
        ("[::1]", "loopback"),
        ("[fd00::1]", "private"),
        ("[fe80::1]", "link-local"),
        ("[::ffff:10.0.0.1]", "private"),
        ("[::ffff:169.254.169.254]", "link-local"),
        ("[fd00:ec2::254]", "private"),
        ("[64:ff9b::a00:1]", "private"),
        ("[2002:a00:1::1]", "private"),
        ("[ff02::1]", "multicast"),
        ("[::]", "unspecified"),
        ("198.18.0.1", "private"),
        ("240.0.0.1", "reserved"),
    ],
)
def test_literal_forbidden_address_is_refused_and_named(host: str, reason: str) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(f"https://{host}/hooks", STRICT, never_called)

    # Then
    assert reason in str(refused.value)


@pytest.mark.parametrize("address", ["10.0.0.1", "169.254.169.254", "fd00:ec2::254", "fe80::1%eth0"])
def test_hostname_resolving_to_a_forbidden_address_is_refused(address: str) -> None:
    # When
    with pytest.raises(PushUrlRejected, match="refused"):
        check_push_url("https://hooks.example.com/", STRICT, resolving_to(address))


def test_hostname_with_one_private_address_among_public_ones_is_refused() -> None:
    # Given
    resolve = resolving_to(PUBLIC_V4, "192.168.0.10", PUBLIC_V6)

    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url("https://hooks.example.com/", STRICT, resolve)

    # Then
    assert "192.168.0.10" in str(refused.value)
    assert "private" in str(refused.value)


@pytest.mark.parametrize(("host", "expected"), [("127.0.0.1", "127.0.0.1"), ("[::1]", "::1")])
def test_https_to_loopback_is_accepted_in_local_mode(host: str, expected: str) -> None:
    # When
    addresses = check_push_url(f"https://{host}:8443/", LOCAL, never_called)

    # Then
    assert addresses == [expected]


@pytest.mark.parametrize("host", ["10.0.0.1", "169.254.169.254", "[fd00:ec2::254]"])
def test_local_mode_still_refuses_non_loopback_private_addresses(host: str) -> None:
    # When
    with pytest.raises(PushUrlRejected, match="refused"):
        check_push_url(f"http://{host}/", LOCAL, never_called)


@pytest.mark.parametrize("resolve", [resolving_to(), not_resolving])
def test_hostname_that_does_not_resolve_is_refused(resolve: Callable[[str, int], list[str]]) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url("https://nowhere.invalid/", STRICT, resolve)

    # Then
    assert "does not resolve" in str(refused.value)


# -- other spellings of an address, through the real resolver (numeric hosts need no network) -------


@pytest.mark.parametrize(
    "url",
    [
        "https://2130706433/",
        "https://0x7f.0.0.1/",
        "https://017700000001/",
        "https://0177.0.0.1/",
        "https://127.1/",
    ],
)
def test_other_spellings_of_loopback_are_refused_outside_local_mode(url: str) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(url, STRICT, system_resolver)

    # Then
    assert "loopback" in str(refused.value)
    assert "127.0.0.1" in str(refused.value)


@pytest.mark.parametrize("policy", [STRICT, LOCAL])
@pytest.mark.parametrize("url", ["https://167772161/", "https://0xa.0.0.1/", "https://012.0.0.1/"])
def test_other_spellings_of_a_private_address_are_refused_in_every_mode(
    url: str, policy: PushUrlPolicy
) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(url, policy, system_resolver)

    # Then
    assert "private" in str(refused.value)
    assert "10.0.0.1" in str(refused.value)


@pytest.mark.parametrize("policy", [STRICT, LOCAL])
def test_the_metadata_address_as_one_decimal_number_is_refused_in_every_mode(policy: PushUrlPolicy) -> None:
    # When: 169.254.169.254
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url("https://2852039166/", policy, system_resolver)

    # Then
    assert "link-local" in str(refused.value)


def test_system_resolver_reports_an_unresolvable_name_as_a_rejection() -> None:
    # When (an empty non-ASCII label fails IDNA encoding before any DNS query is made)
    with pytest.raises(PushUrlRejected, match="does not resolve"):
        system_resolver("b\u00fccher..example", 443)


# -- properties -----------------------------------------------------------------------------------


@given(st.ip_addresses(network="10.0.0.0/8"))
def test_any_address_in_10_slash_8_is_refused_in_every_mode(address: ipaddress.IPv4Address) -> None:
    # When / Then
    with pytest.raises(PushUrlRejected, match="private"):
        check_push_url(f"https://{address}/", LOCAL, never_called)


@given(st.ip_addresses(network="10.0.0.0/8"))
def test_any_ipv4_mapped_private_address_is_refused(address: ipaddress.IPv4Address) -> None:
    # Given
    mapped = f"[::ffff:{address}]"

    # When / Then
    with pytest.raises(PushUrlRejected, match="private"):
        check_push_url(f"https://{mapped}/", STRICT, never_called)


@pytest.mark.parametrize(
    "network", ["172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "fc00::/7", "fe80::/10"]
)
@given(data=st.data())
def test_any_address_in_a_forbidden_network_is_refused_behind_a_hostname(
    network: str, data: st.DataObject
) -> None:
    # Given
    address = data.draw(st.ip_addresses(network=network))

    # When / Then
    with pytest.raises(PushUrlRejected, match="refused"):
        check_push_url("https://hooks.example.com/", LOCAL, resolving_to(PUBLIC_V4, str(address)))


def test_a_name_that_does_not_resolve_is_refused_as_unresolvable_a_temporary_kind() -> None:
    # Given
    from roomcast.webhooks.urls import PushUrlUnresolvable, system_resolver

    # When / Then: refused at subscribe time, and the push function can tell it apart (retries it)
    with pytest.raises(PushUrlUnresolvable, match="does not resolve"):
        check_push_url("https://no-such-host.invalid/hook", PushUrlPolicy(), system_resolver)


# -- IPv6 forms that carry an IPv4 address (issue 10) ---------------------------------------------


def _carriers(v4: ipaddress.IPv4Address | ipaddress.IPv6Address) -> dict[str, ipaddress.IPv6Address]:
    """``v4`` inside each IPv6 form that carries one, by the form's name."""
    assert v4.version == 4
    n = int(v4)
    return {
        "6to4": ipaddress.IPv6Address((0x2002 << 112) | (n << 80) | 1),
        "Teredo": ipaddress.IPv6Address((0x2001_0000 << 96) | (0x4136_E378 << 64) | (n ^ 0xFFFF_FFFF)),
        "NAT64": ipaddress.IPv6Address((0x64_FF9B << 96) | n),
        "IPv4-translated": ipaddress.IPv6Address((0xFFFF << 48) | n),
        "IPv4-compatible": ipaddress.IPv6Address(n),
        "ISATAP": ipaddress.IPv6Address((0x2600 << 112) | (0x5EFE << 32) | n),
    }


LOOPBACK_CARRIERS = _carriers(ipaddress.IPv4Address("127.0.0.1"))


def test_the_6to4_url_of_issue_10_is_refused_in_local_mode() -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url("http://[2002:7f00:1::]:9/", LOCAL, never_called)

    # Then
    assert str(refused.value) == (
        "push URL resolves to a loopback address (127.0.0.1, carried by the 6to4 address 2002:7f00:1::),"
        " which is refused"
    )


@pytest.mark.parametrize(
    ("policy", "scheme"),
    [(STRICT, "https"), (LOCAL, "https"), (LOCAL, "http")],
    ids=["strict", "local-https", "local-http"],
)
@pytest.mark.parametrize(("form", "address"), LOOPBACK_CARRIERS.items(), ids=list(LOOPBACK_CARRIERS))
def test_ipv6_form_carrying_loopback_is_refused_in_every_mode(
    form: str, address: ipaddress.IPv6Address, policy: PushUrlPolicy, scheme: str
) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(f"{scheme}://[{address}]:9/", policy, never_called)

    # Then
    assert f"loopback address (127.0.0.1, carried by the {form} address {address})" in str(refused.value)


def test_teredo_address_carrying_loopback_as_its_server_is_refused() -> None:
    # When: server 127.0.0.1, client 93.184.216.34
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url("http://[2001:0:7f00:1:0:0:a247:27cb]/", LOCAL, never_called)

    # Then
    assert "loopback address (127.0.0.1, carried by the Teredo address" in str(refused.value)


@pytest.mark.parametrize(
    ("host", "category", "carried"),
    [
        ("[2002:a00:1::1]", "private", "10.0.0.1"),
        ("[2002:a9fe:a9fe::]", "link-local", "169.254.169.254"),
        ("[2002:c0a8:101::]", "private", "192.168.1.1"),
        ("[2001:0:a00:1::]", "private", "10.0.0.1"),
        ("[64:ff9b::a9fe:a9fe]", "link-local", "169.254.169.254"),
        ("[::a9fe:a9fe]", "link-local", "169.254.169.254"),
        ("[::ffff:0:a00:1]", "private", "10.0.0.1"),
        ("[2600::5efe:a9fe:a9fe]", "link-local", "169.254.169.254"),
        ("[2600::200:5efe:a00:1]", "private", "10.0.0.1"),
        ("[2002:6440:1::]", "private", "100.64.0.1"),
        ("[2002::]", "unspecified", "0.0.0.0"),  # noqa: S104 - an address refused, nothing is bound
    ],
    ids=[
        "6to4-private",
        "6to4-metadata",
        "6to4-home",
        "teredo-server-private",
        "nat64-metadata",
        "compatible-metadata",
        "translated-private",
        "isatap-metadata",
        "isatap-u-bit-private",
        "6to4-cgnat",
        "6to4-this-network",
    ],
)
def test_ipv6_form_carrying_a_forbidden_ipv4_is_refused_and_names_it(
    host: str, category: str, carried: str
) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(f"https://{host}/hooks", STRICT, never_called)

    # Then
    assert category in str(refused.value)
    assert f"({carried}, carried by the " in str(refused.value)


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize(
    ("form", "address"), _carriers(ipaddress.IPv4Address(PUBLIC_V4)).items(), ids=list(LOOPBACK_CARRIERS)
)
def test_ipv6_form_carrying_a_public_ipv4_is_refused_in_local_mode(
    form: str, address: ipaddress.IPv6Address, scheme: str
) -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url(f"{scheme}://[{address}]/", LOCAL, never_called)

    # Then
    assert f"a {form} address ({address}, carrying " in str(refused.value)
    assert "local mode exempts only true loopback" in str(refused.value)


def test_isatap_address_on_a_public_prefix_carrying_a_public_ipv4_is_accepted_outside_local_mode() -> None:
    # Given (routed by its global prefix; only what it carries could make it special)
    address = str(_carriers(ipaddress.IPv4Address(PUBLIC_V4))["ISATAP"])

    # When
    addresses = check_push_url(f"https://[{address}]/", STRICT, never_called)

    # Then
    assert addresses == [address]


def test_hostname_resolving_to_a_6to4_loopback_is_refused_in_local_mode() -> None:
    # When
    with pytest.raises(PushUrlRejected) as refused:
        check_push_url("http://receiver.local:9/", LOCAL, resolving_to("127.0.0.1", "2002:7f00:1::"))

    # Then
    assert "6to4 address 2002:7f00:1::" in str(refused.value)


def _is_true_loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is None:
            return address == ipaddress.IPv6Address("::1")
        address = address.ipv4_mapped
    return address in ipaddress.IPv4Network("127.0.0.0/8")


_ANY_V4 = st.one_of(st.ip_addresses(v=4), st.ip_addresses(network="127.0.0.0/8"))
_ANY_ADDRESS = st.one_of(
    st.ip_addresses(),
    st.just(ipaddress.IPv6Address("::1")),
    _ANY_V4,
    _ANY_V4.map(lambda v4: ipaddress.IPv6Address(f"::ffff:{v4}")),
    _ANY_V4.flatmap(lambda v4: st.sampled_from(list(_carriers(v4).values()))),
)


@given(_ANY_ADDRESS)
def test_local_mode_accepts_plain_http_to_true_loopback_only(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    # Given
    host = f"[{address}]" if address.version == 6 else str(address)

    # When
    try:
        check_push_url(f"http://{host}:9/", LOCAL, never_called)
        accepted = True
    except PushUrlRejected:
        accepted = False

    # Then
    assert accepted == _is_true_loopback(address)


@pytest.mark.parametrize(
    "network",
    ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10"],
)
@given(data=st.data())
def test_any_form_carrying_a_forbidden_ipv4_is_refused_in_every_mode(
    network: str, data: st.DataObject
) -> None:
    # Given
    v4 = data.draw(st.ip_addresses(network=network))
    form, address = data.draw(st.sampled_from(list(_carriers(v4).items())))
    policy = data.draw(st.sampled_from([STRICT, LOCAL]))

    # When / Then
    with pytest.raises(PushUrlRejected, match=f"carried by the {form} address"):
        check_push_url("https://hooks.example.com/", policy, resolving_to(PUBLIC_V4, str(address)))
