"""Whether two <Files>/<FilesMatch> sections may match one file name.

Apache merges every section a name matches, in order; a target gives a name one section's
location.  The plan (:func:`confmig.model.plan.build._deny_overlapped_files`) needs to know
which pairs can meet: only when no name can match both is a pair left alone.  The answer is
conservative: patterns are read only as far as their anchored literal beginnings and the
finite sets of literal endings (``\\.(eot|woff2?)$``); anything else may overlap.
"""

from __future__ import annotations

import re

from confmig.model.sections import ConfigSection


def basename_regex(section: ConfigSection) -> str:
    """The PCRE a <Files>/<FilesMatch> section matches a file name with (wildcards
    translated, a plain name anchored)."""
    if section.regex is not None:
        return section.regex.source
    if section.fnmatch is not None:
        return section.fnmatch.source
    return "^" + re.escape(section.match) + "$"


def may_overlap(first: ConfigSection, second: ConfigSection) -> bool:
    """False only when no name can match both sections: two ``<Files name>`` naming
    different files, or patterns whose anchored literal beginnings (``^\\.ht``, ``^x``) or
    every possible ending (``\\.(eot|woff2?)$`` against ``\\.(bak|sql)$``) differ.
    Anything else may overlap."""
    if first.regex is None and first.fnmatch is None \
            and second.regex is None and second.fnmatch is None:
        return first.match == second.match
    a, b = anchored_literals(basename_regex(first)), anchored_literals(basename_regex(second))
    if a is None or b is None:
        return True
    (head_a, tails_a, fold_a), (head_b, tails_b, fold_b) = a, b
    if fold_a or fold_b:  # (?i) in one: a name matching both may differ in case from either
        head_a, head_b = head_a.lower(), head_b.lower()
        tails_a, tails_b = {t.lower() for t in tails_a}, {t.lower() for t in tails_b}
    if not (head_a.startswith(head_b) or head_b.startswith(head_a)):
        return False
    return any(x.endswith(y) or y.endswith(x) for x in tails_a for y in tails_b)


_REGEX_META = frozenset(".[](){}*+?|^$\\")
#: the most endings :func:`_endings` lists before it stops reading further back
MAX_ENDINGS = 64


def anchored_literals(source: str) -> tuple[str, set[str], bool] | None:
    """What every match of a pattern begins with after ``^`` ("" when not anchored or not
    literal), the set of literal endings one of which every match ends with before ``$``
    ({""}: not known), and whether ``(?i)`` folds case; None when the pattern has inline
    options other than a leading ``(?i)`` (not read here)."""
    folded = source.startswith("(?i)")
    body = source[4:] if folded else source
    if "(?" in body.replace("(?:", "") or "\\\\" in body \
            or re.search(r"\[[^\]]*[()|]", body):
        return None  # options, an escaped backslash, a paren or bar in a class: not read
    head = ""
    if body.startswith("^") and "|" not in body:
        i = 1
        while i < len(body):
            ch = body[i]
            if ch == "\\" and i + 1 < len(body) and not body[i + 1].isalnum():
                lit, step = body[i + 1], 2
            elif ch not in _REGEX_META:
                lit, step = ch, 1
            else:
                break
            following = body[i + step:i + step + 1]
            if following and following in "*?{":
                break  # optional: not part of every match
            head += lit
            i += step
            if following == "+":
                break
    tails = {""}
    if body.endswith("$") and not body.endswith("\\$"):
        tails = _endings(body[:-1]) or {""}
    return head, tails, folded


def _endings(pattern: str) -> set[str] | None:
    """The literal endings of every match of *pattern* (a union of its alternatives'), read
    backwards until a token with no finite set of strings (``.``, ``*``, ``+``, a negated
    class); None when it cannot be read."""
    out: set[str] = set()
    for alternative in _split_alternatives(pattern):
        if alternative is None:
            return None
        group = _last_group(alternative)
        if group is not None and _finite(group) is None:
            inner = _endings(group)  # (^#.*#|\.bak|~)$: the group's own endings
            if inner is None:
                return None
            out |= inner
            continue
        ends = {""}
        tokens = _tokens(alternative)
        if tokens is None:
            return None
        for strings in reversed(tokens):
            if strings is None or len(ends) * len(strings) > MAX_ENDINGS:
                break
            ends = {s + e for s in strings for e in ends}
        out |= ends
    return out


def _last_group(pattern: str) -> str | None:
    """The inside of the group *pattern* ends with (``(?:`` dropped), if it ends with one."""
    if not pattern.endswith(")") or pattern.endswith("\\)"):
        return None
    depth = 0
    for i in range(len(pattern) - 1, -1, -1):
        ch = pattern[i]
        escaped = i > 0 and pattern[i - 1] == "\\"
        if escaped:
            continue
        depth += {")": 1, "(": -1}.get(ch, 0)
        if depth == 0:
            inner = pattern[i + 1:-1]
            return inner[2:] if inner.startswith("?:") else inner
    return None


def _split_alternatives(pattern: str) -> list[str | None]:
    """*pattern*'s top-level alternatives (``|`` outside groups and classes)."""
    parts: list[str | None] = []
    depth, start, i = 0, 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            close = pattern.find("]", i + 2)
            if close < 0:
                return [None]
            i = close + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def _tokens(pattern: str) -> list[set[str] | None] | None:
    """*pattern* as a sequence of tokens, each the finite set of strings it matches (None:
    not finite, or an anchor); None when it cannot be read."""
    out: list[set[str] | None] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        token: set[str] | None
        if ch == "\\":
            if i + 1 >= len(pattern):
                return None
            nxt = pattern[i + 1]
            token = {nxt} if not nxt.isalnum() else None
            i += 2
        elif ch == "[":
            close = pattern.find("]", i + 2)
            if close < 0:
                return None
            body = pattern[i + 1:close]
            plain = body and not any(c in "^-\\[" for c in body)
            token = set(body) if plain else None
            i = close + 1
        elif ch == "(":
            depth, j = 1, i + 1
            while j < len(pattern) and depth:
                if pattern[j] == "\\":
                    j += 2
                    continue
                depth += {"(": 1, ")": -1}.get(pattern[j], 0)
                j += 1
            if depth:
                return None
            inner = pattern[i + 1:j - 1]
            inner = inner[2:] if inner.startswith("?:") else inner
            token = _finite(inner)
            i = j
        elif ch in ".^$":
            token = None
            i += 1
        elif ch in "*+{":
            return [*out, None] if ch != "{" else None
        else:
            token = {ch}
            i += 1
        if pattern[i:i + 1] == "?":
            token = token | {""} if token is not None else None
            i += 1
        elif pattern[i:i + 1] in ("*", "+", "{"):
            token = None
            close = pattern.find("}", i) if pattern[i] == "{" else i
            i = (close if close >= 0 else len(pattern) - 1) + 1
        out.append(token)
    return out


def _finite(pattern: str) -> set[str] | None:
    """Every string *pattern* matches when they are few and it has no open-ended token."""
    strings: set[str] = set()
    for alternative in _split_alternatives(pattern):
        tokens = _tokens(alternative) if alternative is not None else None
        if tokens is None or any(t is None for t in tokens):
            return None
        whole = {""}
        for token in tokens:
            assert token is not None
            whole = {w + t for w in whole for t in token}
            if len(whole) > MAX_ENDINGS:
                return None
        strings |= whole
    return strings
