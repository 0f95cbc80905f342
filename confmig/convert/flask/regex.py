"""Which engine a generated module matches an Apache pattern with.

Apache compiles every pattern with PCRE2 in byte mode with ``DOTALL`` and ``DOLLAR_ENDONLY``
(:mod:`confmig.model.rewrite.regex`).  Python's ``re`` on bytes with ``DOTALL`` means the same
for the common subset — literals, classes without POSIX names, ``. ^ * + ? {m,n} | ( )``,
``(?: (?= (?! (?<= (?<!``, ``\\d \\w \\s \\b`` and escaped punctuation, back-references
``\\1``–``\\9`` — once each ``$`` is written ``\\Z`` (Python's ``$`` also matches before a final
newline, which DOLLAR_ENDONLY forbids).  Anything else (``\\Z``, ``\\z``, ``\\A``, ``\\h``,
``\\x{…}``, ``\\Q…\\E``, POSIX classes, ``{,n}``, possessive or atomic forms, named groups,
inline options, recursion…) is left to ``pcre2`` in the generated module, and the table says
why next to the pattern.  The pattern is cut by the walk shared with the nginx target
(:mod:`confmig.convert.pcre_pattern`).
"""

from __future__ import annotations

import re

from confmig.convert.pcre_pattern import PatternError, Piece, pieces

_QUANT = re.compile(r"\{\d+(?:,\d*)?\}")
_LOOSE_QUANT = re.compile(r"\{\d*,?\d*\}")
_SAFE_ESCAPES = frozenset("dDwWsSbBntrf")


def python_form(pattern: str) -> tuple[str | None, str]:
    """(the same pattern for Python's ``re``, "") or (None, why it needs pcre2)."""
    out: list[str] = []
    try:
        for piece in pieces(pattern):
            why = _refusal(pattern, piece)
            if why:
                return None, why
            out.append(_PYTHON_TEXT.get(piece.kind, piece.text))
    except PatternError as exc:
        return None, str(exc)
    python = "".join(out)
    try:
        re.compile(python.encode("utf-8", "surrogateescape"), re.DOTALL)
    except (re.error, ValueError, OverflowError) as exc:
        return None, f"Python's re refuses it ({exc})"
    return python, ""


#: What a piece becomes in Python's ``re`` where it is not written as it is: a ``]`` right
#: after ``[`` is escaped (``re`` warns about it), ``$`` is the end only (DOLLAR_ENDONLY).
_PYTHON_TEXT = {"class_bracket": "\\]", "end": "\\Z"}


def _refusal(pattern: str, piece: Piece) -> str:
    """Why *piece* means something else in Python's ``re`` ("" when it does not)."""
    text, i, kind = piece.text, piece.pos, piece.kind
    if kind == "escape":
        nxt = text[1:]
        if not nxt:
            return "a trailing backslash"
        if nxt.isascii() and nxt.isalnum():
            backref = nxt in "123456789" and not pattern[i + 2:i + 3].isdigit()
            if nxt not in _SAFE_ESCAPES and not (backref and not piece.in_class):
                return f"\\{nxt} means something else (or nothing) in Python's re"
        elif not nxt.isascii() or nxt in " #":
            return f"an escaped {nxt!r}"
        return ""
    if kind == "class_posix" or (kind == "class_member" and text == "["):
        return "'[' inside a character class (POSIX classes, nested sets)"
    if kind == "group" and pattern[i + 1:i + 2] == "?":
        ext = pattern[i + 2:i + 4]
        if not (ext[:1] in (":", "=", "!") or ext in ("<=", "<!")):
            return f"the group syntax (?{ext[:1]}…"
    if kind == "char" and text == "{" and _LOOSE_QUANT.match(pattern, i) \
            and not _QUANT.match(pattern, i):
        return "a {,n} quantifier (a literal in Apache's PCRE2)"
    if kind == "char" and text in "*+?}" and pattern[i + 1:i + 2] == "+":
        return "a possessive quantifier"
    return ""
