"""mod_access_compat's per-directory configuration: ``Order``, ``Allow``/``Deny from``,
``Satisfy``.  The module has no merger: the most specific section that mentions it wins."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from confmig.model.merge.handlers import handles
from confmig.model.netmatch import ipsubnet_problem, is_subnet
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class AllowDeny:
    """One ``Allow``/``Deny from`` entry (``methods``: a ``<Limit>``'s, None for all): the
    word *at* of its directive, which :attr:`value` reads from the line - an entry kept its
    own copy of the word, 2.1 MB of a 1 MB file of ``Allow from`` lines (issue 10)."""

    kind: Literal["all", "ip", "host", "env", "nenv"]
    at: int
    methods: frozenset[str] | None
    directive: Directive

    @property
    def value(self) -> str:
        """The address, host or variable name ("" for ``all``)."""
        if self.kind == "all":
            return ""
        word = self.directive.arg(self.at)  # (no list of every word made)
        return word[_NAME_AT.get(self.kind, 0):]


_NAME_AT = {"env": len("env="), "nenv": len("env=!")}  # where the variable's name starts


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
    b.access.setdefault("directives", []).append(d)
    return None


@handles("allow", "deny")
def _allow_deny(b: SectionBuilder, d: Directive, methods: frozenset[str] | None) -> str | None:
    args = d.args
    if len(args) < 2 or args[0].lower() != "from":
        return "allow and deny must be followed by 'from'"
    b.touched.add("access")
    key = "allows" if d.lname == "allow" else "denies"
    # lists while the section is read (the builder makes AccessDir's tuples): a tuple
    # rebuilt a line made a file of Allow lines quadratic, as Redirect's was (d7ff60d)
    entries: list[AllowDeny] = []
    for at, word in enumerate(args[1:], 1):
        low = word.lower()
        if low.startswith("env="):
            kind: Literal["all", "ip", "host", "env", "nenv"] = (
                "nenv" if word.startswith("!", 4) else "env")
            entries.append(AllowDeny(kind, at, methods, d))
        elif low == "all":
            entries.append(AllowDeny("all", at, methods, d))
        elif (problem := ipsubnet_problem(word)) is not None:
            return problem  # (apr_ipsubnet_create: 999.1.1.1, 10.0.0.0/0 ...)
        elif is_subnet(word):
            entries.append(AllowDeny("ip", at, methods, d))
        elif "/" in word:
            return f"An IP address was expected, found '{word}'"
        elif "#" in word:
            return "No comments are allowed here"
        else:
            entries.append(AllowDeny("host", at, methods, d))
    b.access.setdefault(key, []).extend(entries)
    b.access.setdefault("directives", []).append(d)
    return None


@handles("satisfy")
def _satisfy(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("all", "any"):
        return "Satisfy either 'any' or 'all'."
    b.touched.add("access")
    b.access["satisfy"] = low
    b.access.setdefault("directives", []).append(d)
    return None

