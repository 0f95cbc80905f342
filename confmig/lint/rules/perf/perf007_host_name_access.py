"""PERF007: access by host name costs DNS lookups on every request.

``Require host``, ``Allow from``/``Deny from`` with a name, and ``Require forward-dns`` make
Apache resolve the client for each request it checks: a reverse lookup of the address and a
forward lookup of the name it got (the "double reverse" that
:mod:`confmig.model.remotehost` models), or a forward lookup of every listed name.  A slow or
unreachable resolver holds a worker for its timeout; addresses (``Require ip``) cost nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.model.netmatch import ip_subnet
from confmig.syntax import Directive, Section


@register
class HostNameAccess(Rule):
    code = "PERF007"
    name = "host-name-access"
    summary = "access by host name: DNS lookups for every request it checks"
    rationale = (
        "Require host and Allow/Deny from a host name make Apache look the client up for "
        "every request: a reverse lookup of its address and a forward lookup of the name "
        "(double reverse); Require forward-dns resolves every listed name. Each lookup can "
        "take up to the resolver's timeout while a worker waits, and a name-based rule fails "
        "closed when DNS is down. List the addresses instead (Require ip)."
    )
    bad = "Require host example.org\n"
    good = "Require ip 192.0.2.0/24\n"
    fix = "Require ip with the addresses or networks"

    directives = frozenset({"require", "allow", "deny"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        words = [w for w in d.args]
        if d.lname == "require":
            if words and words[0].lower() == "not":
                words = words[1:]
            if words and words[0].lower() in ("host", "forward-dns") and len(words) > 1:
                kind = "reverse and forward" if words[0].lower() == "host" else "forward"
                yield self.finding(d, f"Require {words[0]} {' '.join(words[1:])}: a "
                                      f"{kind} DNS lookup for every request it checks")
            return
        if words and words[0].lower() == "from":
            names = [w for w in words[1:] if _is_host_name(w)]
            if names:
                yield self.finding(d, f"{d.name} from {' '.join(names)}: a double-reverse "
                                      "DNS lookup of the client for every request")


def _is_host_name(word: str) -> bool:
    """Not ``all``, ``env=``/``env=!``, an address or a network (mod_access_compat's kinds)."""
    low = word.lower()
    return not (low == "all" or low.startswith("env=") or ip_subnet(word) is not None)
