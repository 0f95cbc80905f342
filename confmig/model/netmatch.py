"""Client address matching as ``apr_ipsubnet_create``/``apr_ipsubnet_test`` do it, for
``Require ip``, ``Allow from``, and ``-ipmatch``/``-R`` in expressions."""

from __future__ import annotations

import ipaddress
from functools import lru_cache


@lru_cache(maxsize=4096)
def ip_subnet(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``apr_ipsubnet_create``: ``10``, ``10.1``, ``10.1.0.0/16``, ``10.1.0.0/255.255.0.0``,
    IPv6 with an optional prefix length."""
    addr, sep, mask = text.partition("/")
    try:
        if ":" in addr:
            return ipaddress.ip_network(text if sep else addr, strict=False)
        parts = addr.split(".")
        if not (1 <= len(parts) <= 4) or not all(p.isdigit() and int(p) < 256 for p in parts):
            return None
        if sep:
            return ipaddress.ip_network(f"{addr}/{mask}", strict=False)
        bits = 8 * len(parts)
        full = ".".join(parts + ["0"] * (4 - len(parts)))
        return ipaddress.ip_network(f"{full}/{bits}", strict=False)
    except ValueError:
        return None


def ip_matches(spec: str, addr: str) -> bool:
    """Does the client address *addr* fall in the ``Require ip``/``Allow from`` *spec*?"""
    net = ip_subnet(spec)
    if net is None:
        return False
    try:
        return ipaddress.ip_address(addr) in net
    except ValueError:
        return False

