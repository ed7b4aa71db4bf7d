"""``HEARTH_TRUSTED_PROXIES``: who the client is, which scheme it used, whether it is local."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.web.proxies import TrustedProxies
from config.settings import load_settings
from engine.errors import ConfigError

NONE = TrustedProxies()
LOCAL = TrustedProxies(["127.0.0.1/32", "::1/128"])
PAAS = TrustedProxies(["10.0.0.0/8"])


def test_with_no_trusted_proxy_the_peer_is_the_client_whatever_the_headers_say() -> None:
    headers = {"x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https"}
    assert NONE.client("10.1.2.3", headers) == "10.1.2.3"
    assert NONE.scheme("10.1.2.3", headers, "http") == "http"


def test_a_trusted_proxy_names_the_right_most_untrusted_hop() -> None:
    headers = {"x-forwarded-for": "1.2.3.4, 198.51.100.7, 10.0.0.5", "x-forwarded-proto": "https"}
    assert PAAS.client("10.9.9.9", headers) == "198.51.100.7"  # 1.2.3.4 was written by the client
    assert PAAS.scheme("10.9.9.9", headers, "http") == "https"
    assert PAAS.client("10.9.9.9", {"x-forwarded-for": "garbage"}) == "10.9.9.9"
    assert PAAS.client("10.9.9.9", {"x-forwarded-for": "[2001:db8::1]:443"}) == "2001:db8::1"
    assert PAAS.client("192.0.2.1", headers) == "192.0.2.1"  # not the proxy: headers ignored


@given(st.lists(st.ip_addresses(v=4).map(str), min_size=1, max_size=6))
def test_a_client_can_never_pick_a_trusted_address_as_its_own(hops: list[str]) -> None:
    client = PAAS.client("10.0.0.1", {"x-forwarded-for": ", ".join(hops)})
    untrusted = [h for h in hops if not PAAS.trusts(h)]
    assert client == (untrusted[-1] if untrusted else hops[0])


@pytest.mark.parametrize(
    ("proxies", "peer", "headers", "local"),
    [
        (NONE, "127.0.0.1", {}, True),
        (NONE, "::1", {}, True),
        (NONE, "192.0.2.4", {}, False),
        (NONE, "127.0.0.1", {"x-forwarded-for": "127.0.0.1"}, False),  # nobody vouches for it
        (NONE, "127.0.0.1", {"x-real-ip": "203.0.113.1"}, False),
        (LOCAL, "127.0.0.1", {"x-forwarded-for": "203.0.113.1"}, False),
        (LOCAL, "127.0.0.1", {"forwarded": "for=203.0.113.1"}, False),
        (LOCAL, "127.0.0.1", {"x-forwarded-for": "127.0.0.1"}, True),
        (LOCAL, "127.0.0.1", {"x-forwarded-for": "::ffff:127.0.0.1"}, True),
        # issue 29: a chain that names no client is not a loopback one
        (LOCAL, "127.0.0.1", {"x-forwarded-for": "garbage"}, False),
        (LOCAL, "127.0.0.1", {"x-forwarded-for": ""}, False),
        (LOCAL, "127.0.0.1", {"x-forwarded-for": " , "}, False),
        (LOCAL, "127.0.0.1", {"x-forwarded-for": "garbage, 127.0.0.1"}, False),
    ],
)
def test_the_admin_rule_local_means_this_host_not_through_a_proxy(
    proxies: TrustedProxies, peer: str, headers: dict[str, str], local: bool
) -> None:
    assert proxies.is_local(peer, headers) is local


def test_the_variable_takes_addresses_and_cidrs_and_names_a_bad_entry() -> None:
    settings = load_settings(
        {"REDIS_URL": "redis://x", "HEARTH_TRUSTED_PROXIES": " 10.0.0.0/8, ::1 ,192.0.2.7"}
    )
    assert settings.trusted_proxies == ("10.0.0.0/8", "::1/128", "192.0.2.7/32")
    assert load_settings({"REDIS_URL": "redis://x"}).trusted_proxies == ()
    with pytest.raises(ConfigError, match=r"HEARTH_TRUSTED_PROXIES.*'proxy\.local'"):
        load_settings({"REDIS_URL": "redis://x", "HEARTH_TRUSTED_PROXIES": "10.0.0.1,proxy.local"})
