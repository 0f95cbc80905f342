"""mod_access_compat's per-directory configuration: ``Order``, ``Allow``/``Deny from``,
``Satisfy``.  The module has no merger: the most specific section that mentions it wins."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from confmig.model.merge.handlers import handles
from confmig.model.netmatch import ip_subnet, ipsubnet_problem
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class AllowDeny:
    """One ``Allow``/``Deny from`` entry (``methods``: a ``<Limit>``'s, None for all)."""

    kind: Literal["all", "ip", "host", "env", "nenv"]
    value: str
    methods: frozenset[str] | None
    directive: Directive


@dataclass(frozen=True, slots=True)
class AccessDir:
    """``access_compat_dir_conf``: the order, the Allow/Deny entries and Satisfy."""

    order: Literal["deny,allow", "allow,deny", "mutual-failure"] = "deny,allow"
    allows: tuple[AllowDeny, ...] = ()
    denies: tuple[AllowDeny, ...] = ()
    satisfy: Literal["all", "any"] | None = None
    directives: tuple[Directive, ...] = ()


# -- directives --------------------------------------------------------------------------


@handles("order")
def _order(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("allow,deny", "deny,allow", "mutual-failure"):
        return "unknown order"
    b.touched.add("access")
    b.access["order"] = low
    b.access["directives"] = (*b.access.get("directives", ()), d)
    return None


@handles("allow", "deny")
def _allow_deny(b: SectionBuilder, d: Directive, methods: frozenset[str] | None) -> str | None:
    if len(d.args) < 2 or d.args[0].lower() != "from":
        return "allow and deny must be followed by 'from'"
    b.touched.add("access")
    key = "allows" if d.lname == "allow" else "denies"
    entries = list(b.access.get(key, ()))
    for word in d.args[1:]:
        low = word.lower()
        if low.startswith("env="):
            name = word[4:]
            kind: Literal["all", "ip", "host", "env", "nenv"] = "env"
            if name.startswith("!"):
                kind, name = "nenv", name[1:]
            entries.append(AllowDeny(kind, name, methods, d))
        elif low == "all":
            entries.append(AllowDeny("all", "", methods, d))
        elif (problem := ipsubnet_problem(word)) is not None:
            return problem  # (apr_ipsubnet_create: 999.1.1.1, 10.0.0.0/0 ...)
        elif ip_subnet(word) is not None:
            entries.append(AllowDeny("ip", word, methods, d))
        elif "/" in word:
            return f"An IP address was expected, found '{word}'"
        elif "#" in word:
            return "No comments are allowed here"
        else:
            entries.append(AllowDeny("host", word, methods, d))
    b.access[key] = tuple(entries)
    b.access["directives"] = (*b.access.get("directives", ()), d)
    return None


@handles("satisfy")
def _satisfy(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("all", "any"):
        return "Satisfy either 'any' or 'all'."
    b.touched.add("access")
    b.access["satisfy"] = low
    b.access["directives"] = (*b.access.get("directives", ()), d)
    return None

