"""A rewrite block's identity, independent of where it lives.

Two blocks are the same when their RewriteCond/RewriteRule lines are, once
white space is collapsed and the section's own URL prefix (its RewriteBase, or the
URL of the .htaccess directory) is replaced by a placeholder in the targets — so a
block copied into ``/blog/.htaccess`` and ``/shop/.htaccess`` with ``RewriteBase
/blog/`` and ``/shop/`` still counts as one block.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from confmig.lint.scopes import Scope
from confmig.model.rewrite.parse import RewriteConfig, directive_arg_line
from confmig.syntax import Directive

if TYPE_CHECKING:
    from hashlib import blake2b

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

    A line the scope's mod_rewrite parse kept (a rule, a condition) is read from it
    (:func:`_split_lines`); any other line is split again."""
    kinds = bytearray()
    fields: list[str] = [""]   # (the kinds' place)
    rule = False
    for line in _split_lines(scope):
        if line is None:
            return None
        lname, first, second, flags = line
        kinds.append(_KINDS[lname])
        fields += (first, second, flags)
        rule = rule or lname == "rewriterule"
    if not rule:
        return None
    base = scope.rewrite.base if scope.rewrite.base_set else None
    fields[0] = kinds.decode("ascii")
    return base, tuple(fields)


def _split_lines(scope: Scope) -> Iterator[tuple[str, str, str, str] | None]:
    """A scope's RewriteCond/RewriteRule lines as (lower-case name, first, second, flags),
    then None (and no more) at a line that does not split.

    A line the scope's mod_rewrite parse kept (a rule, a condition) is read from it, as
    written: a condition's strings, which it holds, and a rule's fields, which it reads from
    its directive's words where they are those words (no ``parseargline`` split again); any
    other line is split again."""
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
                yield None
                return
        first, second, flags = parsed  # type: ignore[misc]
        yield d.lname, first, second, flags or ""


# -- a block's digest (what DUP001 keeps of an access file) -----------------------------------

DIGEST_SIZE = 16


def _new_digest(data: bytes = b"") -> blake2b:
    """A blake2b of DIGEST_SIZE bytes over ``data``.  hashlib (and OpenSSL) is imported here,
    when a block is first digested: a lint of a file without rewrite rules does not load it
    (tests/test_startup_imports.py)."""
    import hashlib

    return hashlib.blake2b(data, digest_size=DIGEST_SIZE)


def _digest(text: str) -> bytes:
    return _new_digest(text.encode("utf-8", "surrogatepass")).digest()


@dataclass(frozen=True, slots=True)
class BlockDigest:
    """What DUP001 keeps of an access file's block until the tree rules run: digests of its
    normalised lines (:func:`normalised`), not the lines' strings (issue 10: three pointers a
    line to a 1 MB file's rule strings kept them all alive to the end of the lint).

    Equal digests are taken as equal blocks: a 128-bit blake2b digest, as the lint cache
    trusts one of a file's bytes to reuse its findings (lint/engine.py ``_file_key``).

    The URL prefix of a block without RewriteBase is known only at tree time (from the
    docroot), and only a RewriteRule whose target starts with "/" and holds another "/" can
    begin with one: such *open* lines keep their fields; every other line is known now."""

    digest: bytes            # the block's digest, no URL prefix replaced
    size: int                # its number of lines
    lines: bytes             # each closed line's digest, in order (only when ``opened``)
    opened: array[int]       # the open lines' places in the block
    fields: tuple[str, ...]  # (first, second, flags) of each open line

    def key(self, url_prefix: str | None) -> bytes:
        """The block's digest with ``url_prefix`` (the .htaccess directory's URL) replaced."""
        prefix = _prefix(None, url_prefix)
        if not self.opened or prefix is None or not any(
                self.fields[1 + 3 * i].startswith(prefix) for i in range(len(self.opened))):
            return self.digest
        block = _new_digest()
        closed = 0
        opened = dict(zip(self.opened, range(len(self.opened)), strict=True))
        for place in range(self.size):
            at = opened.get(place)
            if at is None:
                block.update(self.lines[closed:closed + DIGEST_SIZE])
                closed += DIGEST_SIZE
                continue
            first, second, flags = self.fields[3 * at:3 * at + 3]
            block.update(_digest(_line_text("rewriterule", first, second, flags, prefix)))
        return block.digest()


def block_digest(scope: Scope) -> BlockDigest | None:
    """A scope's block as :class:`BlockDigest`; None when a line does not split or there is
    no RewriteRule."""
    base = scope.rewrite.base if scope.rewrite.base_set else None
    prefix = _prefix(base, None)
    block = _new_digest()
    opened = array("I")
    fields: list[str] = []
    size = 0
    rule = False
    for line in _split_lines(scope):
        if line is None:
            return None
        lname, first, second, flags = line
        block.update(_digest(_line_text(lname, first, second, flags, prefix)))
        if lname == "rewriterule":
            rule = True
            if base is None and second.startswith("/") and "/" in second[1:]:
                opened.append(size)
                fields += (first, second, flags)
        size += 1
    if not rule:
        return None
    closed = b""
    if opened:   # (rare: the closed lines' digests again, not kept for every block)
        places = set(opened)
        closed = b"".join(_digest(_line_text(*line, prefix))  # type: ignore[misc]
                          for place, line in enumerate(_split_lines(scope))
                          if place not in places)
    return BlockDigest(block.digest(), size, closed, opened, tuple(fields))


def _parsed_lines(config: RewriteConfig) -> Iterator[tuple[Directive | None, str, str, str]]:
    """The lines a RewriteConfig's parse kept, in their order (a rule's conditions before it,
    the conditions no rule follows last): their directive and arguments as written."""
    for rule in config.rules:
        for cond in rule.conditions:
            yield cond.directive, cond.test, cond.raw_pattern, cond.flags_text
        yield rule.directive, rule.raw_pattern, rule.raw_substitution, rule.flags.flags_text
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
    prefix = _prefix(base, url_prefix)
    for lname, first, second, flags in line_fields(lines):
        yield _line_text(lname, first, second, flags, prefix)


def _prefix(base: str | None, url_prefix: str | None) -> str | None:
    """The URL prefix replaced in a block's targets (None: none is)."""
    prefix = base if base is not None else url_prefix
    if prefix is not None and not prefix.endswith("/"):
        prefix += "/"
    return None if prefix == "/" else prefix


def _line_text(lname: str, first: str, second: str, flags: str, prefix: str | None) -> str:
    """One line, white space collapsed and ``prefix`` replaced in a RewriteRule's target."""
    if lname == "rewriterule" and prefix and second.startswith(prefix):
        second = BASE + second[len(prefix):]
    if first and second and flags:   # (the usual line: no generator)
        return f"{lname} {first} {second} {flags}"
    return " ".join(w for w in (lname, first, second, flags) if w)


def block_key(scope: Scope, url_prefix: str | None = None) -> tuple[str, ...] | None:
    """The normalised lines of a scope's rewrite block; None when it has no RewriteRule."""
    found = block_lines(scope)
    return None if found is None else key_of(*found, url_prefix)
