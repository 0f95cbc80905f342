"""Flag fields of RewriteRule and RewriteCond: ``cmd_parseflagfield``,
``cmd_rewriterule_setflag`` and ``cmd_rewritecond_setflag`` of mod_rewrite.c.

Flags are split on ``,`` only (a value cannot contain a comma: ``[E=a:b,c]`` is ``E=a:b`` plus
the chain flag ``c``) and dispatched on their first letter.  The ``D`` branch has no error
case: ``D``, ``DPI`` and ``discardpath`` (any case) set DPI, and any other flag starting with
``D`` (``[DX]``) is accepted and does nothing (verified against httpd 2.4.71 by the
differential site ``rw-dflags``).  ``[]`` and ``[L,]`` hold an empty flag, which is an error.
"""

from __future__ import annotations

from collections.abc import Callable

from confmig.model.rewrite.rules import CondFlags, RuleFlags
from confmig.model.rewrite.uri import atoi

_SPACE = " \t\n\v\f\r"

# Every status line httpd knows (http_protocol.c); [R=n] rejects any other n except 500.
_KNOWN_STATUS = frozenset(
    [100, 101, 102, 103, *range(200, 209), 226, *range(300, 306), 307, 308, *range(400, 418),
     *range(421, 425), 426, 428, 429, 431, 451, *range(500, 509), 510, 511]
)


def parse_flag_field(text: str, setflag: Callable[[str, str], str | None]) -> str | None:
    """``cmd_parseflagfield``: ``[a,b=c, d]`` → ``setflag(key, value)`` for each; error text."""
    if len(text) < 2 or text[0] != "[" or text[-1] != "]":
        return "bad flag delimiters"
    for item in text[1:-1].split(","):
        item = item.strip(_SPACE)
        key, sep, val = item.partition("=")
        err = setflag(key, val if sep else "")
        if err:
            return err
    return None


def cond_flag(cond: CondFlags, key: str) -> str | None:
    """``cmd_rewritecond_setflag`` (into a condition's :class:`CondFlags`, not shared yet)."""
    low = key.lower()
    if low in ("nocase", "nc"):
        cond.nocase = True
    elif low in ("ornext", "or"):
        cond.ornext = True
    elif low in ("novary", "nv"):
        cond.novary = True
    else:
        return f"unknown flag '{key}'"
    return None


def rule_flag(flags: RuleFlags, key: str, val: str, notes: list[str]) -> str | None:
    """``cmd_rewriterule_setflag``: dispatch on the first letter as Apache does (into the
    rule's :class:`RuleFlags`, not shared yet)."""
    if not key:
        return "unknown flag ''"
    first, rest = key[0].lower(), key[1:].lower()
    error = False
    if first == "b":
        if not rest or rest == "ackrefescaping":
            flags.escape_backrefs = True
            if val:
                flags.backref_escapes = val
        elif rest == "ne":
            if not val:
                return "flag 'BNE' wants a list of characters (i.e. [BNE=...])"
            flags.backref_noescapes = val
        elif rest in ("np", "ackrefernoplus"):
            flags.backref_noplus = True
        elif rest == "ctls":
            flags.backref_ctls = flags.escape_backrefs = True
        else:
            error = True
    elif first == "c":
        if not rest or rest == "hain":
            flags.chain = True
        elif rest in ("o", "ookie"):
            flags.cookies = [*flags.cookies, val]
        else:
            error = True
    elif first == "d":
        # Only D, DPI and discardpath mean DPI; the branch has no error case, so any other
        # flag starting with D is accepted and ignored.
        if rest in ("", "pi", "iscardpath"):
            flags.discard_path_info = True
        else:
            notes.append(f"RewriteRule flag '{key}' is accepted by Apache but does nothing "
                         "(only D, DPI and discardpath discard PATH_INFO)")
    elif first == "e":
        if not rest or rest == "nv":
            flags.env = [*flags.env, val]
        elif rest == "nd":
            flags.end = True
        else:
            error = True
    elif first == "f":
        if not rest or rest == "orbidden":
            flags.status_flag = flags.nosub = True
            flags.redirect_code = 403
        else:
            error = True
    elif first == "g":
        if not rest or rest == "one":
            flags.status_flag = flags.nosub = True
            flags.redirect_code = 410
        else:
            error = True
    elif first == "h":
        if not rest or rest == "andler":
            flags.handler = val
        else:
            error = True
    elif first == "l":
        if not rest or rest == "ast":
            flags.last = True
        else:
            error = True
    elif first == "n":
        if rest in ("e", "oescape"):
            flags.noescape = True
        elif not rest or rest == "ext":
            flags.next = True
            if val:
                flags.max_rounds = atoi(val)
        elif rest in ("s", "osubreq"):
            flags.nosubreq = True
        elif rest in ("c", "ocase"):
            flags.nocase = True
        else:
            error = True
    elif first == "p":
        if not rest or rest == "roxy":
            flags.proxy = True
        elif rest in ("t", "assthrough"):
            flags.passthrough = True
        else:
            error = True
    elif first == "q":
        if rest in ("sa", "sappend"):
            flags.qsappend = True
        elif rest in ("sd", "sdiscard"):
            flags.qsdiscard = True
        elif rest in ("sl", "slast"):
            flags.qslast = True
        else:
            error = True
    elif first == "r":
        if not rest or rest == "edirect":
            return _redirect_flag(flags, val)
        error = True
    elif first == "s":
        if not rest or rest == "kip":
            flags.skip = atoi(val)
        else:
            error = True
    elif first == "t":
        if not rest or rest == "ype":
            flags.mime_type = val
        else:
            error = True
    elif first == "u":
        if rest == "nsafeprefixstat":
            flags.unsafe_prefix_stat = True
        elif rest == "nsafeallow3f":
            flags.unsafe_allow_3f = True
        elif rest == "nc":
            flags.unc = True
        else:
            error = True
    else:
        error = True
    return f"unknown flag '{key}'" if error else None


def _redirect_flag(flags: RuleFlags, val: str) -> str | None:
    flags.redirect = True
    if not val:
        return None
    low = val.lower()
    if low == "permanent":
        status = 301
    elif low == "temp":
        status = 302
    elif low == "seeother":
        status = 303
    elif val[0].isdigit():
        status = atoi(val)
        if status != 500 and status not in _KNOWN_STATUS:
            return f"invalid HTTP response code '{val}' for flag 'R'"
        if not 300 <= status < 400:
            flags.status_flag = flags.nosub = True
    else:
        status = 0  # Apache keeps 0 and later falls back to 302
    flags.redirect_code = status
    return None
