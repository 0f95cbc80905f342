"""Client address matching as ``apr_ipsubnet_create``/``apr_ipsubnet_test`` do it, for
``Require ip``, ``Allow from``, and ``-ipmatch``/``-R`` in expressions, and what
``apr_ipsubnet_create`` refuses (:func:`ipsubnet_problem`: the 500 of a bad ``Require ip`` or
``Allow from`` in an ``.htaccess``).

An IPv4 address or network written as four octets (``/`` and a prefix length after it), or as
one to four octets without a mask, is read here as two ints (:func:`_v4`: the network and its
mask), compared with the client's address as an int; any other text goes through
:mod:`ipaddress` (:func:`ip_subnet`).  A 1 MB file of ``Require ip 10.a.b.0/24`` lines kept
4,096 ``IPv4Network`` objects (1.2 MB) in ``ip_subnet``'s cache and built one twice a line, at
the parse and at a request: 1.4 s of its 1.44 s lint went there (issue 10)."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

_V4_ALL = 0xFFFFFFFF


def _v4(text: str) -> tuple[int, int] | None:
    """``(network, mask)`` of *text* when it is an IPv4 address or network of the plain
    forms :func:`ip_subnet` reads (``10``, ``10.1``, ``10.1.2.3``, ``10.1.2.0/24``: octets of
    one to three ASCII digits without a leading zero, at most 255, and with a mask a
    prefix length of ASCII digits, at most 32, after four octets), the network's host bits
    cleared as ``ip_network(..., strict=False)`` clears them; None for any other text
    (which :func:`ip_subnet` reads)."""
    addr, sep, mask = text.partition("/")
    parts = addr.split(".")
    count = len(parts)
    if count > 4 or (sep and count != 4):
        return None
    value = 0
    for part in parts:
        if not (part.isascii() and part.isdigit()) or len(part) > 3 or (
                part[0] == "0" and part != "0"):
            return None
        octet = int(part)
        if octet > 255:
            return None
        value = value << 8 | octet
    if sep:
        if not (mask.isascii() and mask.isdigit()):
            return None
        bits = int(mask)
        if bits > 32:
            return None
    else:
        bits = 8 * count
        value <<= 32 - bits
    netmask = (_V4_ALL << (32 - bits)) & _V4_ALL
    return value & netmask, netmask


@lru_cache(maxsize=256)
def ip_subnet(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``apr_ipsubnet_create``: ``10``, ``10.1``, ``10.1.0.0/16``, ``10.1.0.0/255.255.0.0``,
    IPv6 with an optional prefix length.  (Remembered for the last 256 texts: the model
    reads the plain IPv4 forms without it, :func:`_v4`.)"""
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


def is_subnet(text: str) -> bool:
    """``ip_subnet(text) is not None``, without making the network where :func:`_v4` reads
    *text*."""
    return _v4(text) is not None or ip_subnet(text) is not None


def subnet_refused(text: str) -> bool:
    """A ``Require ip`` word that is not an address or network (:func:`ip_subnet`), or
    that ``apr_ipsubnet_create`` refuses (:func:`ipsubnet_problem`)."""
    if _v4(text) is not None:
        return _zero_mask(text)
    return ip_subnet(text) is None or ipsubnet_problem(text) is not None


def _zero_mask(plain: str) -> bool:
    """Does apr refuse *plain*, a text :func:`_v4` reads?  It takes every such address and
    network but one with a ``/0`` mask ("The specified network mask is invalid.")."""
    _, sep, mask = plain.partition("/")
    return bool(sep) and int(mask) == 0


@lru_cache(maxsize=256)
def _spec(text: str) -> tuple[int, int] | ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """What :func:`ip_matches` compares with: :func:`_v4`'s pair, else :func:`ip_subnet`'s
    network (None: not an address)."""
    found = _v4(text)
    return found if found is not None else ip_subnet(text)


@lru_cache(maxsize=64)
def _client(addr: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The client address *addr* (None: not one)."""
    try:
        return ipaddress.ip_address(addr)
    except ValueError:
        return None


def ip_matches(spec: str, addr: str) -> bool:
    """Does the client address *addr* fall in the ``Require ip``/``Allow from`` *spec*?"""
    net = _spec(spec)
    if net is None:
        return False
    client = _client(addr)
    if client is None:
        return False
    if type(net) is tuple:
        # (an IPv6 client is never in an IPv4 network, as ipaddress answers)
        return client.version == 4 and int(client) & net[1] == net[0]
    return client in net  # type: ignore[operator]


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
    if _v4(text) is not None:
        return "The specified network mask is invalid." if _zero_mask(text) else None
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
