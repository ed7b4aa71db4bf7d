"""Who the client is behind reverse proxies: ``HEARTH_TRUSTED_PROXIES`` (API.md).

``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only when the direct peer is one of
the trusted addresses/CIDRs. The client is then the right-most ``X-Forwarded-For`` hop that is
not itself a trusted proxy (hops further left were written by whoever sent the request and can
be anything). With no trusted proxies (the default) the direct peer is the client and the
scheme is the connection's own. One resolution serves every rule alike: the sign-in rate
limits, the cookie ``Secure`` flag and the loopback-only admin API.

The admin rule is stricter than "the resolved client is loopback": a request that carries any
forwarding header (``X-Forwarded-For``, ``Forwarded``, ``X-Real-IP``) counts as loopback only
when a trusted proxy forwarded it for a loopback client. So a reverse proxy on the same host
never exposes the admin API, trusted or not. A forwarded chain that is empty, or whose hop the
resolution stops at is not an address (``garbage``), names no client: such a request is never
a loopback one (for the rate limits it stays the proxy's, the last address believed).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping

__all__ = ["FORWARDING_HEADERS", "TrustedProxies", "is_loopback"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
FORWARDING_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")
_LOOPBACK_NAMES = {"localhost"}


def _address(raw: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = raw.strip().strip('"')
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_loopback(host: str) -> bool:
    """Whether an address (or ``localhost``) is a loopback address."""
    if host in _LOOPBACK_NAMES:
        return True
    address = _address(host)
    return address is not None and address.is_loopback


class TrustedProxies:
    """The trusted proxy networks and the client/scheme resolution that uses them."""

    def __init__(self, networks: Iterable[str] = ()) -> None:
        self._networks: tuple[Network, ...] = tuple(ipaddress.ip_network(n, strict=False) for n in networks)

    def trusts(self, host: str) -> bool:
        """Whether ``host`` is one of the trusted proxies."""
        address = _address(host)
        return address is not None and any(address in net for net in self._networks)

    def _hops(self, headers: Mapping[str, str]) -> list[str]:
        raw = headers.get("x-forwarded-for", "")
        return [hop.strip() for hop in raw.split(",") if hop.strip()]

    def client(self, peer: str, headers: Mapping[str, str]) -> str:
        """The client's address: the peer, or what trusted proxies say it is."""
        if not self.trusts(peer):
            return peer
        return self._forwarded(headers)[0] or peer

    def _forwarded(self, headers: Mapping[str, str]) -> tuple[str | None, bool]:
        """(the last address the chain names, whether the chain named the client), walking
        ``X-Forwarded-For`` from the right past trusted proxies; it stops at garbage."""
        client = None
        for hop in reversed(self._hops(headers)):
            address = _address(hop)
            if address is None:
                return client, False  # garbage: the client is unknown
            client = str(address)
            if not self.trusts(client):
                return client, True
        return client, client is not None

    def scheme(self, peer: str, headers: Mapping[str, str], own: str) -> str:
        """``http`` or ``https``: ``X-Forwarded-Proto`` from a trusted proxy, else the connection's."""
        if not self.trusts(peer):
            return own
        forwarded = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        return forwarded if forwarded in ("http", "https") else own

    def is_local(self, peer: str, headers: Mapping[str, str]) -> bool:
        """Whether a request comes from this host itself, not through any proxy (the admin rule)."""
        if not is_loopback(peer):
            return False
        if not any(h in headers for h in FORWARDING_HEADERS):
            return True
        if not self.trusts(peer) or "x-forwarded-for" not in headers:
            return False  # forwarded by someone we do not believe: not a local client
        client, named = self._forwarded(headers)
        return named and client is not None and is_loopback(client)
