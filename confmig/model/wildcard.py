"""Wildcard patterns as ``apr_fnmatch`` matches them with ``APR_FNM_PATHNAME`` (``<Directory>``,
``<Files>``, ``<Location>`` wildcards, ``ServerAlias``, ``-strmatch``), compiled to pcre2."""

from __future__ import annotations

from confmig.model.rewrite.regex import Regex


def is_fnmatch(pattern: str) -> bool:
    """``apr_fnmatch_test``: does *pattern* hold a wildcard (``* ? [``)?"""
    return any(ch in pattern for ch in "*?[")


def fnmatch_regex(pattern: str) -> Regex:
    """``apr_fnmatch(pattern, s, APR_FNM_PATHNAME)`` as an anchored pcre2 pattern:
    ``*``/``?`` never match ``/``; ``[...]`` sets (``!`` or ``^`` negates); ``\\`` escapes."""
    out = ["^"]
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(r"\[")
            else:
                body = pattern[i + 1:end]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                body = body.replace("\\", "\\\\").replace("]", r"\]")
                out.append(f"[{'^' if neg else ''}{body}]" if not neg else f"[^/{body}]")
                i = end
        elif ch == "\\" and i + 1 < n:
            i += 1
            out.append(_quote(pattern[i]))
        else:
            out.append(_quote(ch))
        i += 1
    out.append("$")
    return Regex("".join(out))


def _quote(ch: str) -> str:
    return "\\" + ch if not ch.isalnum() and ch != "/" else ch


def count_dirs(path: str) -> int:
    """``ap_count_dirs``: the number of ``/`` in *path*."""
    return path.count("/")

