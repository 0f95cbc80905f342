"""mod_access_compat's per-directory configuration: ``Order``, ``Allow``/``Deny from``,
``Satisfy``.  The module has no merger: the most specific section that mentions it wins."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import InitVar, dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from confmig.model.merge.handlers import handles
from confmig.model.netmatch import ipsubnet_problem, is_subnet
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

Kind = Literal["all", "ip", "host", "env", "nenv"]


@dataclass(frozen=True, slots=True)
class AllowDeny:
    """One ``Allow``/``Deny from`` entry (``methods``: a ``<Limit>``'s, None for all): the
    word *at* of its directive, which :attr:`value` reads from the line - an entry kept its
    own copy of the word, 2.1 MB of a 1 MB file of ``Allow from`` lines (issue 10).  A
    section keeps its entries as :class:`AllowDenyEntries`, which makes one when read."""

    kind: Kind
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
_KINDS: tuple[Kind, ...] = ("all", "ip", "host", "env", "nenv")
_KIND_CODE = {kind: i for i, kind in enumerate(_KINDS)}


class AllowDenyEntries(Sequence[AllowDeny]):
    """A section's ``Allow`` (or ``Deny``) entries, in order, kept as one directive and one
    number (``at * 8 + kind``) an entry, and their ``<Limit>`` methods only when one has
    some: an :class:`AllowDeny` is made when read.  An entry object each was 64 bytes and
    its tuple's slot 8, 2.8 MB of a 1 MB file of ``Allow from`` lines, alive with the
    rest of its lint; this is 12 bytes an entry (issue 10).  Equal to a sequence of the
    same entries (a tuple of :class:`AllowDeny`: what it was)."""

    __slots__ = ("_codes", "_methods", "_nodes")

    def __init__(self) -> None:
        self._nodes: list[Directive] = []
        self._codes = array("I")
        # None while every entry's methods are None, else one an entry
        self._methods: list[frozenset[str] | None] | None = None

    def _add(self, d: Directive, kinds: list[Kind], methods: frozenset[str] | None) -> None:
        """The entries of *d*, whose words from the second on are of *kinds*."""
        if methods is not None and self._methods is None:
            self._methods = [None] * len(self._nodes)
        codes = self._codes
        for at, kind in enumerate(kinds, 1):
            codes.append(at * 8 + _KIND_CODE[kind])
        self._nodes += [d] * len(kinds)
        if self._methods is not None:
            self._methods += [methods] * len(kinds)

    def __len__(self) -> int:
        return len(self._nodes)

    def _entry(self, i: int) -> AllowDeny:
        code = self._codes[i]
        methods = self._methods[i] if self._methods is not None else None
        return AllowDeny(_KINDS[code & 7], code >> 3, methods, self._nodes[i])

    @overload
    def __getitem__(self, index: int) -> AllowDeny: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[AllowDeny, ...]: ...

    def __getitem__(self, index: int | slice) -> AllowDeny | tuple[AllowDeny, ...]:
        if isinstance(index, slice):
            return tuple(self._entry(i) for i in range(len(self))[index])
        return self._entry(range(len(self))[index])  # (IndexError, negative indexes)

    def __iter__(self) -> Iterator[AllowDeny]:
        kinds, methods = _KINDS, self._methods
        if methods is None:
            for d, code in zip(self._nodes, self._codes, strict=True):
                yield AllowDeny(kinds[code & 7], code >> 3, None, d)
        else:
            for d, code, m in zip(self._nodes, self._codes, methods, strict=True):
                yield AllowDeny(kinds[code & 7], code >> 3, m, d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"AllowDenyEntries({tuple(self)!r})"


class AccessReading:
    """What a section's Order/Allow/Deny/Satisfy lines gave while it is read (the builder's
    ``access["read"]``), handed over to its :class:`AccessDir`: its entries and its
    directives are not copied (both held at once were the peak of a big file's lint)."""

    __slots__ = ("allows", "denies", "directives")

    def __init__(self) -> None:
        self.allows: AllowDenyEntries | None = None
        self.denies: AllowDenyEntries | None = None
        self.directives: list[Directive] = []


def _reading(b: SectionBuilder) -> AccessReading:
    read = b.access.get("read")
    if read is None:
        read = b.access["read"] = AccessReading()
    return read  # type: ignore[no-any-return]


_COPIED_UP_TO = 16  # as the builder's handed_over: a short list becomes a (smaller) tuple


@dataclass(frozen=True, slots=True)
class AccessDir:
    """``access_compat_dir_conf``: the order, the Allow/Deny entries and Satisfy.  ``read``:
    what the section's lines gave (:class:`AccessReading`), which sets ``allows``,
    ``denies`` and ``directives``."""

    order: Literal["deny,allow", "allow,deny", "mutual-failure"] = "deny,allow"
    allows: Sequence[AllowDeny] = ()
    denies: Sequence[AllowDeny] = ()
    satisfy: Literal["all", "any"] | None = None
    directives: Sequence[Directive] = ()
    read: InitVar[AccessReading | None] = None

    def __post_init__(self, read: AccessReading | None) -> None:
        if read is None:
            return
        set_: Any = object.__setattr__  # (frozen)
        if read.allows is not None:
            set_(self, "allows", read.allows)
        if read.denies is not None:
            set_(self, "denies", read.denies)
        lines = read.directives
        set_(self, "directives", tuple(lines) if len(lines) <= _COPIED_UP_TO else lines)


# -- directives --------------------------------------------------------------------------


@handles("order")
def _order(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("allow,deny", "deny,allow", "mutual-failure"):
        return "unknown order"
    b.touched.add("access")
    b.access["order"] = low
    _reading(b).directives.append(d)
    return None


@handles("allow", "deny")
def _allow_deny(b: SectionBuilder, d: Directive, methods: frozenset[str] | None) -> str | None:
    args = d.args
    if len(args) < 2 or args[0].lower() != "from":
        return "allow and deny must be followed by 'from'"
    b.touched.add("access")
    # checked before any is kept: a line with a bad word adds none
    kinds: list[Kind] = []
    for word in args[1:]:
        low = word.lower()
        if low.startswith("env="):
            kinds.append("nenv" if word.startswith("!", 4) else "env")
        elif low == "all":
            kinds.append("all")
        elif (problem := ipsubnet_problem(word)) is not None:
            return problem  # (apr_ipsubnet_create: 999.1.1.1, 10.0.0.0/0 ...)
        elif is_subnet(word):
            kinds.append("ip")
        elif "/" in word:
            return f"An IP address was expected, found '{word}'"
        elif "#" in word:
            return "No comments are allowed here"
        else:
            kinds.append("host")
    read = _reading(b)
    # the entries are added to while the section is read: a tuple rebuilt a line made a
    # file of Allow lines quadratic, as Redirect's was (d7ff60d)
    if d.lname == "allow":
        if read.allows is None:
            read.allows = AllowDenyEntries()
        read.allows._add(d, kinds, methods)
    else:
        if read.denies is None:
            read.denies = AllowDenyEntries()
        read.denies._add(d, kinds, methods)
    read.directives.append(d)
    return None


@handles("satisfy")
def _satisfy(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("all", "any"):
        return "Satisfy either 'any' or 'all'."
    b.touched.add("access")
    b.access["satisfy"] = low
    _reading(b).directives.append(d)
    return None

