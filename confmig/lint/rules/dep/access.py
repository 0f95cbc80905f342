"""mod_access_compat (Order / Allow / Deny / Satisfy) and its Require equivalent.

The translation follows mod_access_compat's evaluation: with ``Order Deny,Allow``
(the default) access is allowed unless denied, and an Allow match overrides a Deny
match; with ``Order Allow,Deny`` access is denied unless allowed, and a Deny match
overrides.  ``Mutual-failure`` behaves like Allow,Deny.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

from confmig.syntax import Directive

ACCESS_COMPAT = frozenset({"order", "allow", "deny", "satisfy"})
REQUIRE = frozenset({"require"})

_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){0,3}(?:/[\d.]+)?$")
_IPV6 = re.compile(r"^[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*(?:/\d+)?$")


def require_for(spec: str, negate: bool = False) -> str:
    """``Allow from <spec>`` → the matching ``Require`` line."""
    low = spec.lower()
    neg = "not " if negate else ""
    if low == "all":
        return "Require all denied" if negate else "Require all granted"
    if low.startswith("env="):
        var = spec[4:]
        if var.startswith("!"):
            return f"Require {'' if negate else 'not '}env {var[1:]}"
        return f"Require {neg}env {var}"
    if _IPV4.match(spec) or _IPV6.match(spec):
        return f"Require {neg}ip {spec}"
    return f"Require {neg}host {spec}"


def _hosts(directives: Iterable[Directive], name: str) -> Iterator[str]:
    """The words after ``from`` of the *name* lines (all their words on a line without it),
    a line's words read when reached and not held: a section's are not all held at once
    (1.3 MB of a 1 MB file of ``Allow from`` lines, the peak of its lint; issue 10)."""
    for d in directives:
        if d.lname == name:
            args = d.args
            yield from (islice(args, 1, None) if args and args[0].lower() == "from" else args)


def _read(directives: Iterable[Directive], name: str) -> tuple[bool, bool]:
    """Whether the *name* lines have a word (see :func:`_hosts`), and whether one is ``all``."""
    some = False
    for word in _hosts(directives, name):
        if word.lower() == "all":
            return True, True
        some = True
    return some, False


def translate(directives: Sequence[Directive]) -> str | None:
    """The ``Require`` equivalent of one section's Order/Allow/Deny, on one line.

    None when the combination has no short equivalent (Satisfy, mixed specific lists).
    Lines other than Order/Allow/Deny/Satisfy are passed over.
    """
    if any(d.lname == "satisfy" for d in directives):
        return None
    orders = [d for d in directives if d.lname == "order" and d.args]
    order = orders[-1].args[0].lower().replace(" ", "") if orders else "deny,allow"
    (allows, allow_all), (denies, deny_all) = (_read(directives, "allow"),
                                               _read(directives, "deny"))

    def require(name: str, negate: bool = False) -> str:
        return "; ".join(require_for(w, negate) for w in _hosts(directives, name))

    if order == "deny,allow":
        if allow_all or not denies:
            return "Require all granted"
        if deny_all:
            return require("allow") if allows else "Require all denied"
        if not allows:
            return f"<RequireAll> Require all granted; {require('deny', True)} </RequireAll>"
        return None
    # allow,deny and mutual-failure: allowed AND not denied
    if deny_all or not allows:
        return "Require all denied"
    if not denies:
        return "Require all granted" if allow_all else require("allow")
    if allow_all:
        return f"<RequireAll> Require all granted; {require('deny', True)} </RequireAll>"
    return None
