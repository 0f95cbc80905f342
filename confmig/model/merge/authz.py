"""mod_authz_core / mod_authn_core per-directory configuration: ``Require`` lines and
``<RequireAll/Any/None>`` groups as a tree, ``AuthMerging``, ``AuthType``/``AuthName``, and
``merge_authz_core_dir_config``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from confmig.model.merge.checks import BUILTIN_METHODS
from confmig.model.merge.handlers import handles, on_off, takes
from confmig.model.netmatch import subnet_refused
from confmig.syntax import Directive, Node, Section
from confmig.syntax.words import first_word

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

AuthzOp = Literal["and", "or"]
AUTHZ_PROVIDERS: dict[str, str] = {
    "all": "mod_authz_core", "env": "mod_authz_core", "method": "mod_authz_core",
    "expr": "mod_authz_core", "ip": "mod_authz_host", "host": "mod_authz_host",
    "local": "mod_authz_host", "forward-dns": "mod_authz_host", "user": "mod_authz_user",
    "valid-user": "mod_authz_user", "group": "mod_authz_groupfile",
    "file-owner": "mod_authz_owner", "file-group": "mod_authz_owner",
    "dbd-group": "mod_authz_dbd", "ldap-user": "mod_authnz_ldap",
    "ldap-group": "mod_authnz_ldap",
}


@dataclass(frozen=True, slots=True)
class AuthzNode:
    """A ``Require`` line (``provider`` set) or a ``<RequireAll/Any/None>`` group (most
    Require lines are a :class:`RequireLine`, which reads its text from its line)."""

    op: AuthzOp = "or"
    negate: bool = False
    provider: str | None = None
    args: str = ""
    children: tuple[AuthzNode, ...] = ()
    methods: frozenset[str] | None = None  # <Limit>: only these methods (None: all)
    directive: Node | None = None
    merged: bool = False

    def describe(self) -> str:
        if self.provider is not None:
            neg = "not " if self.negate else ""
            return f"Require {neg}{self.provider} {self.args}".rstrip()
        kind = ("NotAll" if self.negate else "All") if self.op == "and" else \
            ("None" if self.negate else "Any")
        return f"AuthMerging {kind}" if self.merged else f"<Require{kind}>"


class RequireLine:
    """A ``Require`` line whose text after the provider is the end of its directive's
    argument text: :class:`AuthzNode`'s fields (a line's: ``op`` "or", no children, not
    merged) with its provider, ``not`` and where that text starts in its class (one class
    per provider, ``not`` and start: :func:`_line_class`), and nothing but its directive in
    the object (``methods`` too in ``<Limit>``: :class:`_LimitedRequireLine`).  40 bytes a
    line, not an AuthzNode's 96 and its text: a 1 MB file of ``Require ip`` lines kept
    5.7 MB of them (issue 10)."""

    __slots__ = ("directive",)
    op: AuthzOp = "or"
    children: tuple[AuthzNode, ...] = ()
    methods: frozenset[str] | None = None
    merged = False
    # the class's (see _line_class)
    provider: str = ""
    negate = False
    _start = 0

    def __init__(self, directive: Directive) -> None:
        self.directive = directive

    @property
    def args(self) -> str:
        """The line's text after the provider (after ``not`` and the provider), stripped."""
        return self.directive.args_text[self._start:]

    def describe(self) -> str:
        neg = "not " if self.negate else ""
        return f"Require {neg}{self.provider} {self.args}".rstrip()

    def __repr__(self) -> str:
        return f"<{self.describe()} at {self.directive!r}>"

    def __reduce__(self) -> tuple[object, ...]:
        return (_require_line, (self.directive, self.provider, self.negate, self._start,
                                self.methods))


class _LimitedRequireLine(RequireLine):
    """A :class:`RequireLine` in ``<Limit>``/``<LimitExcept>``: only for ``methods``."""

    __slots__ = ("methods",)  # type: ignore[assignment]

    def __init__(self, directive: Directive, methods: frozenset[str]) -> None:
        self.directive = directive
        self.methods = methods


# RequireLine's classes by (provider, not, start, limited): at most 16 x 2 x 64 x 2
_LINE_CLASSES: dict[tuple[str, bool, int, bool], type[RequireLine]] = {}


def _line_class(provider: str, negate: bool, start: int, limited: bool) -> type[RequireLine]:
    key = (provider, negate, start, limited)
    found = _LINE_CLASSES.get(key)
    if found is None:
        base = _LimitedRequireLine if limited else RequireLine
        found = _LINE_CLASSES[key] = type(base.__name__, (base,), {
            "__slots__": (), "__module__": __name__, "__qualname__": base.__qualname__,
            "provider": provider, "negate": negate, "_start": start})
    return found


def _require_line(directive: Directive, provider: str, negate: bool, start: int,
                  methods: frozenset[str] | None) -> RequireLine:
    """The RequireLine of these fields (made again by copy and pickle)."""
    if methods is None:
        return _line_class(provider, negate, start, False)(directive)
    return _line_class(provider, negate, start, True)(directive, methods)  # type: ignore[call-arg]


class RequireGroup:
    """A ``<RequireAll/Any/None/NotAll>`` group whose members are its section's Require
    lines, one :class:`RequireLine` each, in order (blank and comment lines between them):
    :class:`AuthzNode`'s fields (a group's: no provider, no ``<Limit>`` methods, not merged)
    with its op, ``not`` and each line's class in its class (:func:`_group_class`), and
    nothing but its section in the object; its ``children`` are made from the section's
    lines when read.  40 bytes a group, not an AuthzNode's 96, the tuple of its members
    (56 for two) and a RequireLine a line (40): a 1 MB file of two-line ``<RequireAll>``
    blocks kept 2.7 MB of them (issue 10)."""

    __slots__ = ("directive",)
    provider: str | None = None
    args = ""
    methods: frozenset[str] | None = None
    merged = False
    # the class's (see _group_class): the section's children's line classes (None: a
    # blank or comment line)
    op: AuthzOp = "or"
    negate = False
    _lines: tuple[type[RequireLine] | None, ...] = ()

    def __init__(self, section: Section) -> None:
        self.directive = section

    @property
    def children(self) -> tuple[RequireLine, ...]:
        """The group's Require lines, made again from its section's lines."""
        return tuple([line(node) for line, node in  # type: ignore[arg-type]
                      zip(self._lines, self.directive.children, strict=True)
                      if line is not None])

    def describe(self) -> str:
        kind = ("NotAll" if self.negate else "All") if self.op == "and" else \
            ("None" if self.negate else "Any")
        return f"<Require{kind}>"

    def __repr__(self) -> str:
        return f"<{self.describe()} at {self.directive!r}>"

    def __reduce__(self) -> tuple[object, ...]:
        lines = tuple(None if line is None else (line.provider, line.negate, line._start)
                      for line in self._lines)
        return (_require_group, (self.directive, self.op, self.negate, lines))


# RequireGroup's classes by (op, not, line classes): at most _GROUP_CLASSES_MAX, of groups of
# at most _GROUP_LINES_MAX lines (any other group is an AuthzNode)
_GROUP_CLASSES: dict[tuple[str, bool, tuple[type[RequireLine] | None, ...]],
                     type[RequireGroup]] = {}
_GROUP_CLASSES_MAX = 256
_GROUP_LINES_MAX = 16


def _group_class(op: AuthzOp, negate: bool, lines: tuple[type[RequireLine] | None, ...]
                 ) -> type[RequireGroup] | None:
    key = (op, negate, lines)
    found = _GROUP_CLASSES.get(key)
    if found is None and len(_GROUP_CLASSES) < _GROUP_CLASSES_MAX:
        found = _GROUP_CLASSES[key] = type("RequireGroup", (RequireGroup,), {
            "__slots__": (), "__module__": __name__, "__qualname__": "RequireGroup",
            "op": op, "negate": negate, "_lines": lines})
    return found


def _require_group(section: Section, op: AuthzOp, negate: bool,
                   keys: tuple[tuple[str, bool, int] | None, ...]) -> RequireGroup:
    """The RequireGroup of these fields, each line's (provider, not, start) (made again by
    copy and pickle)."""
    lines = tuple(None if key is None else _line_class(*key, False) for key in keys)
    cls = _group_class(op, negate, lines)
    if cls is None:  # (the classes' cap reached in this process)
        cls = type("RequireGroup", (RequireGroup,), {
            "__slots__": (), "__module__": __name__, "__qualname__": "RequireGroup",
            "op": op, "negate": negate, "_lines": lines})
    return cls(section)


def group_node(section: Section, op: AuthzOp, negate: bool,
               children: Sequence[AuthzNode | RequireLine | RequireGroup]
               ) -> AuthzNode | RequireGroup:
    """The node of group *section* (``add_authz_section``) of these members: a
    :class:`RequireGroup` when they are one :class:`RequireLine` (not limited to methods) for
    each of its section's directives in order, and it has no section inside; else an
    :class:`AuthzNode` keeping them."""
    nodes = section.children
    if len(nodes) <= _GROUP_LINES_MAX:
        lines: list[type[RequireLine] | None] = []
        members = iter(children)
        for node in nodes:
            if isinstance(node, Directive):
                member = next(members, None)
                if not isinstance(member, RequireLine) or member.directive is not node \
                        or member.methods is not None:
                    break
                lines.append(type(member))
            elif isinstance(node, Section):
                break
            else:
                lines.append(None)
        else:
            if next(members, None) is None:
                cls = _group_class(op, negate, tuple(lines))
                if cls is not None:
                    return cls(section)
    kept = tuple(children)
    return AuthzNode(op=op, negate=negate, children=kept,  # type: ignore[arg-type]
                     methods=union_methods(kept), directive=section)  # type: ignore[arg-type]


def union_methods(nodes: Iterable[AuthzNode]) -> frozenset[str] | None:
    """A group's ``limited`` bits: the methods any of its members applies to (None: all)."""
    out: set[str] = set()
    for node in nodes:
        if node.methods is None:
            return None
        out |= node.methods
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class AuthzDir:
    """``authz_core_dir_conf``: the Require tree, AuthMerging, AuthzSendForbiddenOnFailure."""

    section: AuthzNode | None = None
    merging: Literal["off", "and", "or"] | None = None
    forbidden_on_fail: bool | None = None


def merge_authz(base: AuthzDir, new: AuthzDir) -> AuthzDir:
    """``merge_authz_core_dir_config``: without AuthMerging a child's Require lines replace
    the parent's; a child without any keeps the parent's; And/Or combine both."""
    fof = new.forbidden_on_fail if new.forbidden_on_fail is not None else base.forbidden_on_fail
    if new.merging is None and new.section is None and base.section is not None:
        return replace(base, forbidden_on_fail=fof)
    if new.merging in (None, "off") or (base.section is None and new.section is None):
        return replace(new, forbidden_on_fail=fof)
    if base.section is not None and new.section is not None:
        pair = (base.section, new.section)
        section = AuthzNode(op=new.merging, children=pair,  # type: ignore[arg-type]
                            methods=union_methods(pair), merged=True)
    else:
        section = base.section or new.section
    return AuthzDir(section, new.merging, fof)


@dataclass(frozen=True, slots=True)
class AuthnDir:
    """``authn_core_dir_conf``: AuthType and AuthName."""

    auth_type: str | None = None
    auth_name: str | None = None


def merge_authn(base: AuthnDir, new: AuthnDir) -> AuthnDir:
    return AuthnDir(new.auth_type or base.auth_type, new.auth_name or base.auth_name)


# -- directives --------------------------------------------------------------------------


# each provider's name as the registry spells it: what a Require line's node keeps
_PROVIDER_NAMES = {name: name for name in AUTHZ_PROVIDERS}


@handles("require")
def _require(b: SectionBuilder, d: Directive, methods: frozenset[str] | None) -> str | None:
    """``add_authz_provider``: the provider must exist (its module loaded), and a negated
    Require cannot sit directly in a RequireAny group (the implicit top level is one)."""
    words = list(d.args)
    if not words:
        return "Require requires at least one argument"
    negate = words[0].lower() == "not"
    if negate:
        words.pop(0)
    # ap_lookup_provider's names are case-sensitive: "Require ALL granted" is 500
    provider = words[0] if words else ""
    module = AUTHZ_PROVIDERS.get(provider)
    if module is None or not b.has_module(module):
        return f"Unknown Authz provider: {provider}"
    provider = _PROVIDER_NAMES[provider]  # one string for every Require line (issue 10)
    rest = d.args_text or " ".join(d.args)
    if negate:
        rest = first_word(rest)[1]
    args = first_word(rest)[1].strip()
    if provider == "all" and args.lower() not in ("granted", "denied"):
        return "Require all only takes 'granted' or 'denied'"
    if provider == "method":
        # method_parse_config reads words up to an empty one; no method at all is no error
        # (an empty set: denied, 403)
        listed = words[1:words.index("", 1)] if "" in words[1:] else words[1:]
        unknown = [w for w in listed if w not in BUILTIN_METHODS and w not in b.known_methods]
        if unknown:  # (ap_method_number_of is case-sensitive)
            return f"Invalid Method '{unknown[0]}'"
    if provider == "expr":
        # (the expression model is loaded for a configuration that has an expression)
        from confmig.model.expr import ExprError, parse_cached

        text = require_expr_text(args)
        try:
            parse_cached(text, restricted=b.restricted)
        except ExprError as exc:
            return f"Cannot parse expression in require line: {exc}"
    if provider == "ip":
        bad = [w for w in words[1:] if subnet_refused(w)]
        if not words[1:] or bad:
            return f"ip address '{bad[0] if bad else ''}' appears to be invalid"
    b.touched.add("authz")
    if negate and b.authz_groups[-1].op == "or":
        return ("negative Require directive has no effect in "
                f"{b.authz_groups[-1].describe()} directive")
    b.authz_stack[-1].append(require_node(d, negate, provider, args, methods))
    return None


def require_node(d: Directive, negate: bool, provider: str, args: str,
                 methods: frozenset[str] | None) -> AuthzNode | RequireLine:
    """The node of Require line *d*: a :class:`RequireLine` where its ``args`` are the end of
    the line's argument text (checked here), else an :class:`AuthzNode` keeping them."""
    text = d.args_text
    start = len(text) - len(args)
    if 0 <= start < 64 and text[start:] == args:
        return _require_line(d, provider, negate, start, methods)
    return AuthzNode(negate=negate, provider=provider, args=args, methods=methods,
                     directive=d)


def require_expr_text(args: str) -> str:
    """``expr_parse_config``: the expression, without surrounding double quotes."""
    if len(args) >= 2 and args[0] == '"' and args[-1] == '"':
        return args[1:-1]
    return args


@handles("authmerging")
def _auth_merging(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    low = d.args[0].lower() if len(d.args) == 1 else ""
    if low not in ("off", "and", "or"):
        return "AuthMerging must be one of: Off | And | Or"
    b.touched.add("authz")
    b.authz["merging"] = low
    return None


@handles("authzsendforbiddenonfailure")
def _authz_fof(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = on_off(d)
    if value is None:
        return f"{d.name} must be On or Off"
    b.touched.add("authz")
    b.authz["fof"] = value
    return None


@handles("authtype", "authname")
def _authn(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    value = d.args[0]
    # set_authname/set_authtype: a string expression (ap_expr_parse_cmd)
    if any(c in value for c in "%$\\"):
        from confmig.model.expr import ExprError, parse_string_cached

        try:
            parse_string_cached(value, restricted=b.restricted)
        except ExprError as exc:
            return f"Cannot parse expression '{value}' in {d.name}: {exc}"
    b.touched.add("authn")
    if d.lname == "authtype":
        b.authn["auth_type"] = None if value.lower() == "none" else value
    else:
        b.authn["auth_name"] = value
    return None

