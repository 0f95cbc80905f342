"""A rewrite block's identity, independent of where it lives.

Two blocks are the same when their RewriteCond/RewriteRule lines are, once
white space is collapsed and the section's own URL prefix (its RewriteBase, or the
URL of the .htaccess directory) is replaced by a placeholder in the targets — so a
block copied into ``/blog/.htaccess`` and ``/shop/.htaccess`` with ``RewriteBase
/blog/`` and ``/shop/`` still counts as one block.
"""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.scopes import Scope
from confmig.model.rewrite.parse import RewriteConfig, directive_arg_line
from confmig.syntax import Directive

BLOCK_DIRECTIVES = ("rewritecond", "rewriterule")
BASE = "{base}/"


# A block's rewrite lines, split as mod_rewrite splits them, in one flat tuple: first a string
# of each line's kind ("c" RewriteCond, "r" RewriteRule), then three fields a line (first,
# second, flags).  A tuple per line was 72 bytes more for each line of a block (1.4 MB for the
# block of a 1 MB file of rules); the directive's name as a fourth field a line was 8 bytes
# more (0.16 MB of that block, at the peak of its lint, issue 10).  The fields are the
# directive's own words where equal (directive_arg_line).
Lines = tuple[str, ...]
FIELDS = 3
_KINDS = {"rewritecond": ord("c"), "rewriterule": ord("r")}
_NAMES = {chr(kind): lname for lname, kind in _KINDS.items()}


def line_fields(lines: Lines) -> Iterator[tuple[str, str, str, str]]:
    """Each line of :data:`Lines` as (directive's lower-case name, first, second, flags)."""
    for number, kind in enumerate(lines[0] if lines else ""):
        at = 1 + number * FIELDS
        yield _NAMES[kind], lines[at], lines[at + 1], lines[at + 2]


def block_lines(scope: Scope) -> tuple[str | None, Lines] | None:
    """A scope's RewriteBase (None when not set) and its RewriteCond/RewriteRule lines,
    split (:data:`Lines`); None when a line does not split or there is no RewriteRule.

    A line the scope's mod_rewrite parse kept (a rule, a condition) is read from it: the
    strings the parsed rules hold anyway, not a split of its own kept with the summary (a
    1 MB file of rules, 3 strings a line); any other line is split again."""
    kinds = bytearray()
    fields: list[str] = [""]   # (the kinds' place)
    rule = False
    parsed_lines = _parsed_lines(scope.rewrite)
    upcoming = next(parsed_lines, None)
    for d in scope.directives:
        if d.lname not in BLOCK_DIRECTIVES:
            continue
        if upcoming is not None and upcoming[0] is d:
            parsed: tuple[str, str, str | None] | None = upcoming[1:]
            upcoming = next(parsed_lines, None)
        else:
            parsed = directive_arg_line(d)
            if parsed is None:
                return None
        first, second, flags = parsed  # type: ignore[misc]
        kinds.append(_KINDS[d.lname])
        fields += (first, second, flags or "")
        rule = rule or d.lname == "rewriterule"
    if not rule:
        return None
    base = scope.rewrite.base if scope.rewrite.base_set else None
    fields[0] = kinds.decode("ascii")
    return base, tuple(fields)


def _parsed_lines(config: RewriteConfig) -> Iterator[tuple[Directive | None, str, str, str]]:
    """The lines a RewriteConfig's parse kept, in their order (a rule's conditions before it,
    the conditions no rule follows last): their directive and arguments as written."""
    for rule in config.rules:
        for cond in rule.conditions:
            yield cond.directive, cond.test, cond.raw_pattern, cond.flags_text
        flags = rule.flags
        yield (rule.directive, "!" + rule.pattern if flags.negate else rule.pattern,
               rule.raw_substitution, flags.flags_text)
    for cond in config.dangling_conditions:
        yield cond.directive, cond.test, cond.raw_pattern, cond.flags_text


def key_of(base: str | None, lines: Lines, url_prefix: str | None = None
           ) -> tuple[str, ...]:
    """The normalised lines of a block (see the module docstring)."""
    return tuple(normalised(base, lines, url_prefix))


def key_hash(base: str | None, lines: Lines, url_prefix: str | None = None) -> int:
    """A hash of :func:`key_of`'s key, made a line at a time: one int where the key is a
    string per line (issue 10: 2 MB for the block of a 1 MB file).  Equal keys have equal
    hashes; blocks whose hashes are equal are told apart with :func:`same_key`."""
    h = hash(len(lines))
    for line in normalised(base, lines, url_prefix):
        h = hash((h, line))
    return h


def same_key(a: tuple[str | None, Lines, str | None],
             b: tuple[str | None, Lines, str | None]) -> bool:
    """Whether two blocks (base, lines, URL prefix) have equal keys, compared a line at a
    time."""
    if len(a[1]) != len(b[1]):
        return False
    return all(x == y for x, y in zip(normalised(*a), normalised(*b), strict=True))


def normalised(base: str | None, lines: Lines, url_prefix: str | None = None
               ) -> Iterator[str]:
    """Each line of a block, white space collapsed and the section's URL prefix replaced."""
    prefix = base if base is not None else url_prefix
    if prefix is not None and not prefix.endswith("/"):
        prefix += "/"
    for lname, first, second, flags in line_fields(lines):
        if lname == "rewriterule" and prefix and prefix != "/" and second.startswith(prefix):
            second = BASE + second[len(prefix):]
        yield " ".join(w for w in (lname, first, second, flags) if w)


def block_key(scope: Scope, url_prefix: str | None = None) -> tuple[str, ...] | None:
    """The normalised lines of a scope's rewrite block; None when it has no RewriteRule."""
    found = block_lines(scope)
    return None if found is None else key_of(*found, url_prefix)
