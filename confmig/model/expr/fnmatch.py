"""``apr_fnmatch`` for the ``-strmatch`` (no flags), ``-strcmatch`` (``APR_FNM_CASE_BLIND``)
and ``-fnmatch`` (``APR_FNM_PATHNAME``) operators of ``ap_expr``.

``*`` matches any run of characters and ``?`` one character, except ``/`` under PATHNAME;
``[…]`` is a set (``!`` or ``^`` negates, ``a-z`` ranges, never ``/`` under PATHNAME); ``\\``
makes the next character literal.  Case folding is ASCII only, as ``apr_tolower``.
A matcher rather than a translation to a regex: the pattern comes from a configuration and the
subject from a request, and this loop is linear in both for each ``*`` it backtracks to.
"""

from __future__ import annotations

_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fnmatch(pattern: str, subject: str, *, pathname: bool = False,
            case_blind: bool = False) -> bool:
    if case_blind:
        pattern, subject = pattern.translate(_FOLD), subject.translate(_FOLD)
    p = s = 0
    star_p = star_s = -1
    while s < len(subject):
        if p < len(pattern):
            ch = pattern[p]
            if ch == "*":
                star_p, star_s = p, s
                p += 1
                continue
            if ch == "?" and not (pathname and subject[s] == "/"):
                p += 1
                s += 1
                continue
            if ch == "[":
                matched, end = _bracket(pattern, p, subject[s], pathname)
                if end >= 0:
                    if matched:
                        p, s = end, s + 1
                        continue
                elif subject[s] == "[":  # an unterminated set is a literal '['
                    p, s = p + 1, s + 1
                    continue
            elif ch != "?":
                literal = ch
                step = 1
                if ch == "\\" and p + 1 < len(pattern):
                    literal, step = pattern[p + 1], 2
                if literal == subject[s]:
                    p, s = p + step, s + 1
                    continue
        # mismatch: let the last '*' take one more character (never a '/' under PATHNAME)
        if star_p < 0 or (pathname and subject[star_s] == "/"):
            return False
        star_s += 1
        p, s = star_p + 1, star_s
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def _bracket(pattern: str, start: int, ch: str, pathname: bool) -> tuple[bool, int]:
    """Whether *ch* is in the set opening at *start*, and the index after the set (-1 when
    the set is not closed)."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    found = False
    first = True
    while i < len(pattern) and (pattern[i] != "]" or first):
        first = False
        low = pattern[i]
        if low == "\\" and i + 1 < len(pattern):
            i += 1
            low = pattern[i]
        high = low
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            high = pattern[i + 2]
            if high == "\\" and i + 3 < len(pattern):
                i += 1
                high = pattern[i + 2]
            i += 2
        if low <= ch <= high:
            found = True
        i += 1
    if i >= len(pattern):
        return False, -1
    if pathname and ch == "/":
        return False, i + 1
    return found != negate, i + 1
