"""mod_access_compat (Order / Allow / Deny / Satisfy) and its Require equivalent.

The translation follows mod_access_compat's evaluation: with ``Order Deny,Allow``
(the default) access is allowed unless denied, and an Allow match overrides a Deny
match; with ``Order Allow,Deny`` access is denied unless allowed, and a Deny match
overrides.  ``Mutual-failure`` behaves like Allow,Deny.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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


def _hosts(directives: Sequence[Directive], name: str) -> list[str]:
    out: list[str] = []
    for d in directives:
        if d.lname == name:
            args = d.args[1:] if d.args and d.args[0].lower() == "from" else d.args
            out.extend(args)
    return out


def translate(directives: Sequence[Directive]) -> str | None:
    """The ``Require`` equivalent of one section's Order/Allow/Deny, on one line.

    None when the combination has no short equivalent (Satisfy, mixed specific lists).
    """
    if any(d.lname == "satisfy" for d in directives):
        return None
    orders = [d for d in directives if d.lname == "order" and d.args]
    order = orders[-1].args[0].lower().replace(" ", "") if orders else "deny,allow"
    allows, denies = _hosts(directives, "allow"), _hosts(directives, "deny")
    allow_all = any(a.lower() == "all" for a in allows)
    deny_all = any(d.lower() == "all" for d in denies)
    refusals = "; ".join(require_for(d, negate=True) for d in denies)
    if order == "deny,allow":
        if allow_all or not denies:
            return "Require all granted"
        if deny_all:
            return "; ".join(require_for(a) for a in allows) if allows else "Require all denied"
        if not allows:
            return f"<RequireAll> Require all granted; {refusals} </RequireAll>"
        return None
    # allow,deny and mutual-failure: allowed AND not denied
    if deny_all or not allows:
        return "Require all denied"
    if not denies:
        return "Require all granted" if allow_all else "; ".join(require_for(a) for a in allows)
    if allow_all:
        return f"<RequireAll> Require all granted; {refusals} </RequireAll>"
    return None
