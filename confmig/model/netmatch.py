"""Client address matching as ``apr_ipsubnet_create``/``apr_ipsubnet_test`` do it, for
``Require ip``, ``Allow from``, and ``-ipmatch``/``-R`` in expressions, and what
``apr_ipsubnet_create`` refuses (:func:`ipsubnet_problem`: the 500 of a bad ``Require ip`` or
``Allow from`` in an ``.htaccess``)."""

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


# -- addresses ----------------------------------------------------------------------------


def _looks_like_ip(text: str) -> bool:
    """apr's ``looks_like_ip``: not empty, and IPv6 (a colon) or digits and dots only."""
    if not text:
        return False
    return ":" in text or all(c == "." or (c.isdigit() and c.isascii()) for c in text)


def _parse_network(text: str) -> bool:
    """apr's ``parse_network``: ``a``, ``a.b``, ``a.b.c.`` ... up to four octets."""
    if len(text) >= len("255.255.255.255") + 1:
        return False
    octets = text.split(".")
    if octets and octets[-1] == "":
        octets.pop()
    if not 1 <= len(octets) <= 4:
        return False
    return all(o.isdigit() and o.isascii() and int(o) <= 255 for o in octets)


def _inet_pton(family: int, text: str) -> bool:
    try:
        if family == 4:
            if text.count(".") != 3 or not all(p.isdigit() for p in text.split(".")):
                return False
            ipaddress.IPv4Address(text)
        else:
            ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def ipsubnet_problem(text: str) -> str | None:
    """What ``apr_ipsubnet_create`` says of *text* (``addr`` or ``addr/mask``), as its
    callers report it: None when it is a valid address or subnet, or does not look like an
    address at all (a host name to Allow/Deny); else the message."""
    addr, sep, mask = text.partition("/")
    if not _looks_like_ip(addr):
        return "An IP address was expected" if sep else None
    v6 = _inet_pton(6, addr)
    if not v6 and not _inet_pton(4, addr) and (sep or not _parse_network(addr)):
        return "The specified IP address is invalid."
    if sep:
        maxbits = 128 if v6 else 32
        if mask.isdigit() and mask.isascii():
            if 0 < int(mask) <= maxbits:
                return None
        elif not v6 and _inet_pton(4, mask):
            return None
        return "The specified network mask is invalid."
    return None
