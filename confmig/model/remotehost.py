"""The client's host name as ``Require host``, ``Require forward-dns`` and ``Allow/Deny from
name`` see it, looked up through the system resolver as Apache on the same machine would.

* ``ap_get_remote_host(…, REMOTE_DOUBLE_REV, …)`` (server/core.c): the reverse lookup of the
  client address (``getnameinfo`` with ``NI_NAMEREQD``), lower-cased, kept only when a forward
  lookup of that name gives the client address back ("double reverse"); otherwise no name.
* ``in_domain`` (mod_authz_host, mod_access_compat): a listed name matches when the host name
  ends with it, case-insensitively, on a label boundary (``good.com`` does not admit
  ``nogood.com``; ``.good.com`` admits any subdomain).
* ``forward-dns``: the listed name resolves to the client address.

Lookups are made once per address and name for a site.  With lookups off (``explain
--no-dns``) no name is found, and the caller announces that the answer was not looked up.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def client_host_name(ev: Evaluation) -> str | None:
    """The double-reverse host name of the client, or None (no name, or lookups off)."""
    addr = ev.request.remote_addr
    if not ev.request.dns_lookups:
        return None
    key = ("double-reverse", addr)
    if key not in ev.site.memo:
        ev.site.memo[key] = _double_reverse(addr)
    return ev.site.memo[key]


def resolves_to_client(ev: Evaluation, name: str) -> bool:
    """``Require forward-dns name``: one of *name*'s addresses is the client's."""
    if not ev.request.dns_lookups:
        return False
    key = ("forward-dns", name.lower())
    if key not in ev.site.memo:
        ev.site.memo[key] = _addresses(name)
    return _normal(ev.request.remote_addr) in ev.site.memo[key]


def in_domain(domain: str, host: str) -> bool:
    """mod_authz_host's ``in_domain``: *host* ends with *domain* on a label boundary."""
    if len(host) < len(domain) or host[len(host) - len(domain):].lower() != domain.lower():
        return False
    if len(host) == len(domain):
        return True
    return domain.startswith(".") or host[len(host) - len(domain) - 1] == "."


def _double_reverse(addr: str) -> str | None:
    import socket  # (only a Require host asks the resolver: startup, issue 17)

    try:
        name, _ = socket.getnameinfo((addr, 0), socket.NI_NAMEREQD)
    except (OSError, ValueError, UnicodeError):
        return None
    name = name.lower()
    return name if _normal(addr) in _addresses(name) else None


def _addresses(name: str) -> frozenset[str]:
    import socket

    try:
        infos = socket.getaddrinfo(name, None)
    except (OSError, ValueError, UnicodeError):
        return frozenset()
    return frozenset(_normal(str(info[4][0])) for info in infos)


def _normal(addr: str) -> str:
    """An address in one spelling (``::ffff:127.0.0.1`` is ``127.0.0.1``, as
    ``apr_sockaddr_equal`` compares v4-mapped addresses)."""
    try:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])
    except ValueError:
        return addr
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)
