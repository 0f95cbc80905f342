"""Which engine a generated module matches an Apache pattern with.

Apache compiles every pattern with PCRE2 in byte mode with ``DOTALL`` and ``DOLLAR_ENDONLY``
(:mod:`confmig.model.rewrite.regex`).  Python's ``re`` on bytes with ``DOTALL`` means the same
for the common subset — literals, classes without POSIX names, ``. ^ * + ? {m,n} | ( )``,
``(?: (?= (?! (?<= (?<!``, ``\\d \\w \\s \\b`` and escaped punctuation, back-references
``\\1``–``\\9`` — once each ``$`` is written ``\\Z`` (Python's ``$`` also matches before a final
newline, which DOLLAR_ENDONLY forbids).  Anything else (``\\Z``, ``\\z``, ``\\A``, ``\\h``,
``\\x{…}``, ``\\Q…\\E``, POSIX classes, ``{,n}``, possessive or atomic forms, named groups,
inline options, recursion…) is left to ``pcre2`` in the generated module, and the table says
why next to the pattern.
"""

from __future__ import annotations

import re

_QUANT = re.compile(r"\{\d+(?:,\d*)?\}")
_LOOSE_QUANT = re.compile(r"\{\d*,?\d*\}")
_SAFE_ESCAPES = frozenset("dDwWsSbBntrf")


def python_form(pattern: str) -> tuple[str | None, str]:
    """(the same pattern for Python's ``re``, "") or (None, why it needs pcre2)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            nxt = pattern[i + 1 : i + 2]
            if not nxt:
                return None, "a trailing backslash"
            if nxt.isascii() and nxt.isalnum():
                backref = nxt in "123456789" and not pattern[i + 2 : i + 3].isdigit()
                if nxt not in _SAFE_ESCAPES and not (backref and not in_class):
                    return None, f"\\{nxt} means something else (or nothing) in Python's re"
            elif not nxt.isascii() or nxt in " #":
                return None, f"an escaped {nxt!r}"
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "[":
                return None, "'[' inside a character class (POSIX classes, nested sets)"
            if ch == "]":
                in_class = False
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            if pattern[i : i + 1] == "^":
                out.append("^")
                i += 1
            if pattern[i : i + 1] == "]":
                out.append("\\]")
                i += 1
            continue
        if ch == "(" and pattern[i + 1 : i + 2] == "?":
            ext = pattern[i + 2 : i + 4]
            if not (ext[:1] in (":", "=", "!") or ext in ("<=", "<!")):
                return None, f"the group syntax (?{ext[:1]}…"
        if ch == "{" and _LOOSE_QUANT.match(pattern, i) and not _QUANT.match(pattern, i):
            return None, "a {,n} quantifier (a literal in Apache's PCRE2)"
        if ch in "*+?}" and pattern[i + 1 : i + 2] == "+":
            return None, "a possessive quantifier"
        out.append("\\Z" if ch == "$" else ch)
        i += 1
    if in_class:
        return None, "an unterminated character class"
    python = "".join(out)
    try:
        re.compile(python.encode("utf-8", "surrogateescape"), re.DOTALL)
    except (re.error, ValueError, OverflowError) as exc:
        return None, f"Python's re refuses it ({exc})"
    return python, ""
