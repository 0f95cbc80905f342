"""One walk over an Apache (PCRE2) pattern, shared by the converters that rewrite patterns
for another engine: nginx (:mod:`confmig.convert.nginx.regex`) and the generated Flask module
(:mod:`confmig.convert.flask.regex`).

The walk cuts a pattern into pieces, each with what it is and where it sits: an escape
(``\\x``), a character class's parts (its opening ``[``/``[^``, a ``]`` that is a literal
right after it, a POSIX name ``[:alpha:]``, any other member, its closing ``]``), a group's
``(`` and ``)``, an alternation ``|``, the anchors ``^`` and ``$`` outside classes, and any
other character.  Each target reads the pieces and decides what to refuse and what to
write instead (nginx: anchors for a stripped prefix; Python's ``re``: ``$`` as ``\\Z``);
neither has to know how PCRE2 delimits a class or an escape.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

Kind = Literal["escape", "class_open", "class_bracket", "class_posix", "class_member",
               "class_close", "group", "close", "bar", "start", "end", "char"]

#: ``[:name:]`` (or ``[:^name:]``) inside a class: one POSIX class, not a nested set.
_POSIX_NAME = frozenset("abcdefghijklmnopqrstuvwxyz")


class PatternError(ValueError):
    """A pattern the walk cannot cut (an unterminated character class)."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of a pattern: ``text`` as written, at ``pos``; ``depth`` is the number of
    groups open around it (a group's own ``(`` and ``)`` count outside it); ``in_class``:
    inside a character class (its ``[`` and ``]`` included)."""

    kind: Kind
    text: str
    pos: int
    depth: int
    in_class: bool = False


def pieces(pattern: str) -> Iterator[Piece]:
    """The pieces of *pattern*, in order; their texts joined give *pattern* back.

    A backslash always takes the next character with it (also inside a class); a lone
    trailing backslash is an ``escape`` piece of its own.  Raises :class:`PatternError`
    for a class that is never closed."""
    i, n = 0, len(pattern)
    depth = 0
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            yield Piece("escape", pattern[i:i + 2], i, depth, in_class)
            i += 2
            continue
        if in_class:
            posix = _posix_class(pattern, i)
            if posix:
                yield Piece("class_posix", posix, i, depth, True)
                i += len(posix)
                continue
            if ch == "]":
                in_class = False
                yield Piece("class_close", ch, i, depth, True)
            else:
                yield Piece("class_member", ch, i, depth, True)
            i += 1
            continue
        if ch == "[":
            in_class = True
            opening = "[^" if pattern[i + 1:i + 2] == "^" else "["
            yield Piece("class_open", opening, i, depth, True)
            i += len(opening)
            if pattern[i:i + 1] == "]":  # a ']' right after '[' or '[^' is a literal
                yield Piece("class_bracket", "]", i, depth, True)
                i += 1
            continue
        if ch == "(":
            yield Piece("group", ch, i, depth)
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
            yield Piece("close", ch, i, depth)
        elif ch == "|":
            yield Piece("bar", ch, i, depth)
        elif ch == "^":
            yield Piece("start", ch, i, depth)
        elif ch == "$":
            yield Piece("end", ch, i, depth)
        else:
            yield Piece("char", ch, i, depth)
        i += 1
    if in_class:
        raise PatternError("an unterminated character class")


def _posix_class(pattern: str, i: int) -> str:
    """``[:name:]`` (or ``[:^name:]``) starting at *i*, or ""."""
    if not pattern.startswith("[:", i):
        return ""
    j = i + 2
    if pattern[j:j + 1] == "^":
        j += 1
    start = j
    while j < len(pattern) and pattern[j] in _POSIX_NAME:
        j += 1
    if j > start and pattern.startswith(":]", j):
        return pattern[i:j + 2]
    return ""
