"""What a test string or substitution refers to: ``%{VAR}``, ``$N``, ``%N``.

A small scanner after ``do_expand`` in mod_rewrite.c: ``\\x`` escapes the next
character, ``%{…}`` and ``${…}`` run to the matching ``}`` (nesting counted),
``$N``/``%N`` are one digit.  Only what the lint rules need is kept.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import pcre2

from confmig.model.rewrite.regex import to_bytes

# lookup_variable() in mod_rewrite.c: the names it knows (compared upper-cased).  Anything
# else expands to the empty string without a warning.
KNOWN_VARIABLES = frozenset({
    "TIME", "IPV6", "HTTPS", "TIME_DAY", "TIME_SEC", "TIME_MIN", "TIME_MON", "TIME_WDAY",
    "TIME_YEAR", "IS_SUBREQ", "PATH_INFO", "AUTH_TYPE", "HTTP_HOST", "TIME_HOUR",
    "SERVER_NAME", "REMOTE_ADDR", "SERVER_ADDR", "HTTP_ACCEPT", "THE_REQUEST", "API_VERSION",
    "HTTP_COOKIE", "SERVER_PORT", "REMOTE_HOST", "REMOTE_PORT", "REMOTE_USER", "SCRIPT_USER",
    "REQUEST_URI", "SCRIPT_GROUP", "REMOTE_IDENT", "HTTP_REFERER", "QUERY_STRING",
    "SERVER_ADMIN", "DOCUMENT_ROOT", "HTTP_FORWARDED", "CONTEXT_PREFIX", "REQUEST_METHOD",
    "REQUEST_SCHEME", "HTTP_USER_AGENT", "SCRIPT_FILENAME", "SERVER_PROTOCOL",
    "SERVER_SOFTWARE", "CONN_REMOTE_ADDR", "REQUEST_FILENAME", "HTTP_PROXY_CONNECTION",
    "CONTEXT_DOCUMENT_ROOT",
})
PREFIXES = ("ENV:", "SSL:", "HTTP:", "LA-U:", "LA-F:")


@dataclass(frozen=True, slots=True)
class Ref:
    """``kind`` is ``var`` (``%{name}``), ``rule`` (``$N``), ``cond`` (``%N``) or ``map``."""

    kind: str
    name: str
    offset: int


def _closing(text: str, i: int) -> int:
    depth = 1
    while i < len(text):
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        elif text[i] == "{":
            depth += 1
        i += 1
    return -1


# Where a reference or an escape may start: the scanner jumps from one to the next (a lint of
# a 1 MB file of 20,000 distinct rules scanned 40,000 texts a character at a time).  One of
# confmig's own fixed patterns, not a pattern from a config (those are PCRE, compiled by pcre2).
_MAY_START = re.compile(r"[\\$%]")


@functools.lru_cache(maxsize=1024)
def scan(text: str) -> tuple[Ref, ...]:
    """The references in ``text``, in order (those inside ``${map:key}`` included); scanned
    once per text (a tree repeats the same lines)."""
    out: list[Ref] = []
    found = _MAY_START.search(text)
    while found is not None:
        i = found.start()
        c = text[i]
        nxt = text[i + 1:i + 2]
        if c == "\\":
            i += 2
        elif nxt == "{":
            end = _closing(text, i + 2)
            if end < 0:
                i += 2
            elif c == "%":
                out.append(Ref("var", text[i + 2:end], i))
                i = end + 1
            else:
                out.append(Ref("map", text[i + 2:end], i))
                i += 2  # scan the key and default too
        elif nxt.isdigit():
            out.append(Ref("rule" if c == "$" else "cond", nxt, i))
            i += 2
        else:
            i += 1
        found = _MAY_START.search(text, i)
    return tuple(out)


def is_known_variable(name: str) -> bool:
    """Whether ``lookup_variable`` gives ``%{name}`` a value (it may still be empty)."""
    upper = name.upper()
    if any(upper.startswith(p) and len(name) > len(p) for p in PREFIXES):
        return True
    return upper in KNOWN_VARIABLES


@functools.lru_cache(maxsize=1024)
def group_count(pattern: str, nocase: bool = False) -> int | None:
    """Capturing groups of a pattern as PCRE2 compiles it; None when it does not compile.
    No JIT: nothing is matched here, and the JIT compilation costs four times the rest.
    Asked once per pattern (a tree repeats the same few)."""
    try:
        return pcre2.compile(to_bytes(pattern), pcre2.IGNORECASE if nocase else 0,
                             jit=False).groups
    except pcre2.PatternError:
        return None
