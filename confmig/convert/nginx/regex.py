"""Apache regexes as nginx regexes with the same meaning.

Apache compiles every pattern with ``DOTALL`` and ``DOLLAR_ENDONLY``
(:mod:`confmig.model.rewrite.regex`); nginx compiles with neither, so ``(?s)`` is prepended
and every ``$`` anchor becomes ``\\z`` (the end of the subject only).

A per-directory pattern sees the URL-path with the directory's prefix removed; nginx matches
the whole ``$uri``.  :func:`per_directory` anchors the prefix and lets the pattern search the
rest exactly as Apache searches the stripped string: ``^PREFIX.*?(?:P)`` tries the same start
offsets in the same order, and every ``^`` of *P* (the start of the stripped string) becomes
a look-behind for the prefix.  Group numbers are unchanged (only non-capturing groups are
added).  :func:`basename` does the same for ``<Files>``/``<FilesMatch>``, which Apache
matches against the last path component.

The pattern is cut by the walk shared with the Flask target
(:mod:`confmig.convert.pcre_pattern`): only its anchors outside character classes are
rewritten here.
"""

from __future__ import annotations

import re

from confmig.convert.pcre_pattern import PatternError, pieces

_MULTILINE = re.compile(r"\(\?[a-zA-Z]*m[a-zA-Z-]*[:)]")


class Untranslatable(ValueError):
    """A pattern whose meaning would change (the message says why)."""


def _scan(pattern: str, anchor: str) -> str:
    """Replace the anchors of *pattern* outside character classes: ``^`` by *anchor*,
    ``$`` by ``\\z`` (DOLLAR_ENDONLY).  Refuses what the rewriting cannot keep exact."""
    return _scan_counting(pattern, anchor)[0]


def _scan_counting(pattern: str, anchor: str) -> tuple[str, int, bool]:
    """:func:`_scan`, also counting the ``^`` anchors and telling whether *pattern* has an
    alternation at its top level."""
    if _MULTILINE.search(pattern):
        raise Untranslatable("multi-line mode changes ^ and $")
    out: list[str] = []
    anchors = 0
    top_alternation = False
    try:
        for piece in pieces(pattern):
            kind, text = piece.kind, piece.text
            if kind == "escape" and text[1:] in ("A", "G", "K", "Q"):
                raise Untranslatable(f"{text} in a pattern")
            if kind == "group" and pattern[piece.pos + 1:piece.pos + 4] in ("?<=", "?<!"):
                raise Untranslatable("a look-behind would see the directory prefix")
            if kind == "bar" and piece.depth == 0:
                top_alternation = True
            if kind == "start":
                anchors += 1
                out.append(anchor)
            elif kind == "end":
                out.append(r"\z")
            else:
                out.append(text)
    except PatternError as exc:
        raise Untranslatable(str(exc)) from exc
    return "".join(out), anchors, top_alternation


def pcre_literal(text: str) -> str:
    """*text* as a PCRE that matches exactly these characters (as confmig writes it: only
    the metacharacters get a backslash)."""
    return "".join("\\" + ch if ch in r".^$|?*+()[]{}\\" else ch for ch in text)


def _quoted_prefix(prefix: str) -> str:
    return re.escape(prefix).replace("\\/", "/")


def per_directory(pattern: str, prefix: str, nocase: bool) -> str:
    """The nginx regex (against ``$uri``) for per-directory *pattern* under URL *prefix*."""
    quoted = _quoted_prefix(prefix)
    look = f"(?<=^{quoted})"
    body, anchors, alternation = _scan_counting(pattern, look)
    flags = "(?i)" if nocase else ""
    if anchors == 1 and not alternation and body.startswith(look):
        # "^P" with no other anchor: the prefix, then P at once (the readable common case)
        rest = body[len(look):]
        return f"(?s)^{quoted}(?i:{rest})" if flags else f"(?s)^{quoted}{rest}"
    # The prefix itself is compared as Apache does, byte for byte; only P is caseless.
    return f"(?s)^{quoted}.*?(?:{flags}{body})" if flags else f"(?s)^{quoted}.*?(?:{body})"


def per_directory_candidate(pattern: str, prefix: str, nocase: bool) -> str:
    """A regex that matches every ``$uri`` :func:`per_directory` matches (and maybe more):
    its pattern searched anywhere instead of after ``^PREFIX.*?``, which without JIT copies
    a frame for every character; PCRE2 skips to where the pattern can start."""
    regex = per_directory(pattern, prefix, nocase)
    lazy = f"(?s)^{_quoted_prefix(prefix)}.*?(?:"
    if not regex.startswith(lazy):
        return regex  # "^PREFIX…" at once: anchored, cheap already
    return f"(?s)(?:{regex[len(lazy):]}"


def url_path(pattern: str, nocase: bool = False) -> str:
    """A pattern Apache matches against the whole URL-path (``RedirectMatch``)."""
    body = _scan(pattern, "^")
    return f"(?s){'(?i)' if nocase else ''}{body}"


def name_then_path(pattern: str) -> str:
    """The ``<FilesMatch>`` *pattern* for a path component followed by more path
    (PATH_INFO): its ``$`` is the end of that component.  Bodies of several patterns joined
    with ``|`` are one body for the levels below."""
    return _scan(pattern, "(?<=/)").replace("\\z", "(?=/)")


def then_path_level(body: str, name: str, nth: int) -> str:
    """A regex for a path whose *nth* component that *body* (:func:`name_then_path`)
    matches is followed by more path; the path up to that component is captured as
    *name*.  Lazy repeats: the first *nth* such components, in order."""
    return f"(?s)^(?<{name}>(?:.*?/[^/]*?(?:{body})[^/]*){_times(nth)})/"


def then_path_chain(body: str, name: str, nth: int) -> str:
    """:func:`then_path_level` where the first *nth* components of the path all match
    *body* (each directory of the chain is known to be one when the one after it is
    tested)."""
    return f"(?s)^(?<{name}>(?:/[^/]*?(?:{body})[^/]*){_times(nth)})/"


def then_path_beyond(body: str, name: str, nth: int) -> str:
    """A regex for a path with more than *nth* components that *body* matches followed by
    more path; the path up to the *nth* is captured as *name*."""
    return (f"(?s)^(?<{name}>(?:.*?/[^/]*?(?:{body})[^/]*){_times(nth)})"
            f".*?/[^/]*?(?:{body})[^/]*/")


def path_prefix_text(prefix: str) -> str:
    """The URL *prefix* (``/dir/``) as a regex (only PCRE's metacharacters escaped)."""
    return _quoted_prefix(prefix)


def path_prefix(nth: int, name: str) -> str:
    """A regex for a path with more than *nth* components: the first *nth* (the path up to
    them) captured as *name*."""
    return f"(?s)^(?<{name}>(?:/[^/]*){_times(nth)})/"


def path_prefix_named(body: str, nth: int, name: str) -> str:
    """:func:`path_prefix` where the *nth* component is one that *body*
    (:func:`name_then_path`) matches."""
    before = f"(?:/[^/]*){_times(nth - 1)}" if nth > 1 else ""
    return (f"(?s)^(?={before}/[^/]*?(?:{body})[^/]*/)"
            f"(?<{name}>(?:/[^/]*){_times(nth)})/")


def _times(nth: int) -> str:
    return "" if nth == 1 else f"{{{nth}}}"


def files_candidate(pattern: str) -> str:
    """A regex that matches every path :func:`basename` or the ``then_path_*`` regexes match
    for the ``<FilesMatch>`` *pattern* (and maybe more): the body of each searched
    anywhere.  Cheap where those are not: PCRE2 skips to the positions where the body can
    start, where they try every position of a component with lazy repeats (and, without
    JIT, copy a frame for each)."""
    body = _scan(pattern, "(?<=/)")
    then_path = body.replace("\\z", "(?=/)")
    if then_path == body:
        return f"(?s)(?:{body})"
    return f"(?s)(?:{body})|(?:{then_path})"


def after(prefix: str, pattern: str, nocase: bool) -> str:
    """A regex for ``PREFIX:VALUE`` that searches *pattern* in VALUE the way Apache searches
    it (VALUE starts after the first ``:``; *prefix* is a regex of its own)."""
    body = _scan(pattern, "(?<=:)")
    flags = "(?i)" if nocase else ""
    return f"(?s)^(?:{prefix}):.*?(?:{flags}{body})"


def basename(pattern: str) -> str:
    """The nginx location regex for a ``<FilesMatch>`` pattern (last path component)."""
    body = _scan(pattern, "(?<=/)")
    return f"(?s)/(?=[^/]*\\z)[^/]*?(?:{body})"
