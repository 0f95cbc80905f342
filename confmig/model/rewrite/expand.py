"""Expansion of substitutions and test strings: ``do_expand`` in mod_rewrite.c.

Handles ``\\x`` escapes, ``%{VAR}``, ``${map:key|default}`` (key and default expanded
recursively), ``$N`` (rule back-references) and ``%N`` (back-references of the last matched
RewriteCond).  Expansion is single-pass: what an expansion produces is never re-expanded.

It also tracks where the (first, or with ``[QSL]`` last) ``?`` of a substitution comes from,
for Apache's 2.4.60+ rule that a ``?`` produced by an expansion (say ``$1`` holding a decoded
``%3F``) makes the request 403 unless the rule has ``[UnsafeAllow3F]``.

Templates come from the config, so each is tokenised once and cached; the caches are
bounded (the least recently used dropped first): a file of thousands of distinct test strings
kept a token tuple, a template and a resolver per string for the life of the process (issue
10).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from confmig.model.rewrite.rules import RewriteRule
from confmig.model.rewrite.state import EvalState
from confmig.model.rewrite.uri import escape_backref
from confmig.model.rewrite.variables import resolver

# Token kinds
_SPAN, _RAW, _VAR, _REF, _MAP = range(5)
# The same kinds by public name, for readers of tokenize() (the nginx emitter).
TOKEN_SPAN, TOKEN_RAW, TOKEN_VAR, TOKEN_REF, TOKEN_MAP = _SPAN, _RAW, _VAR, _REF, _MAP
Token = tuple  # (kind, ...)
_CACHED = 1024  # templates kept tokenised and compiled, each cache (as regex._compiled)
_SPECIALS = "\\$%"


def _find_closing_curly(s: str, i: int) -> int:
    depth = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "}":
            depth -= 1
            if depth == 0:
                return i
        elif c == "{":
            depth += 1
        i += 1
    return -1


def _find_char_in_curlies(s: str, i: int, ch: str) -> int:
    depth = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == ch and depth == 1:
            return i
        if c == "}":
            depth -= 1
            if depth == 0:
                return -1
        elif c == "{":
            depth += 1
        i += 1
    return -1


def lone_header(text: str) -> str | None:
    """The NAME of a test string that is one ``%{HTTP:NAME}`` and nothing else (its value is
    that header's, as :func:`compile_value` resolves it: ``text[7:-1]``), else None."""
    if len(text) > 8 and text[6] == ":" and text[:2] == "%{" and text[2:6].upper() == "HTTP" \
            and _find_closing_curly(text, 2) == len(text) - 1:
        return text[7:-1]
    return None


@functools.lru_cache(maxsize=_CACHED)
def tokenize(text: str) -> tuple[Token, ...]:
    """Split a template into tokens (cached)."""
    tokens: list[Token] = []
    n = len(text)
    i = 0

    def span_end(i: int) -> int:
        j = i
        while j < n and text[j] not in _SPECIALS:
            j += 1
        return j

    j = span_end(0)
    if j:
        tokens.append((_SPAN, text[:j]))
    i = j
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "\\":
            tokens.append((_RAW, nxt or "\\"))
            i += 2
            if not nxt:
                break
        elif nxt == "{":
            end = _find_closing_curly(text, i + 2)
            if end < 0:
                tokens.append((_RAW, text[i:i + 2]))
                i += 2
            elif c == "%":
                tokens.append((_VAR, text[i + 2:end], resolver(text[i + 2:end])))
                i = end + 1
            else:
                colon = _find_char_in_curlies(text, i + 2, ":")
                if colon < 0 or colon > end:
                    tokens.append((_RAW, text[i:i + 2]))
                    i += 2
                else:
                    inner = text[colon + 1:end]
                    bar = _find_char_in_curlies(inner, 0, "|")
                    key, dflt = (inner, None) if bar < 0 else (inner[:bar], inner[bar + 1:])
                    tokens.append((_MAP, text[i + 2:colon], key, dflt))
                    i = end + 1
        elif "0" <= nxt <= "9":
            tokens.append((_REF, c, int(nxt)))
            i += 2
        else:
            tokens.append((_RAW, c))
            i += 1
        j = span_end(i)
        if j > i:
            tokens.append((_SPAN, text[i:j]))
        i = j
    return tuple(tokens)


def expand(text: str, st: EvalState, rule: RewriteRule | None = None) -> str:
    """Expand *text* (a test string, env/cookie spec, or a substitution without the 3F check)."""
    return compile_template(text)(st, rule)


Template = Callable[[EvalState, "RewriteRule | None"], str]


@functools.lru_cache(maxsize=_CACHED)
def compile_template(text: str) -> Template:
    """A function expanding *text*; constant and single-``%{VAR}`` templates (most test
    strings) get a direct path."""
    tokens = tokenize(text)
    if not tokens:
        func = _const("")
    elif len(tokens) == 1 and tokens[0][0] in (_SPAN, _RAW):
        func = _const(tokens[0][1])
    elif len(tokens) == 1 and tokens[0][0] == _VAR:
        resolve = tokens[0][2]
        func = lambda st, rule: resolve(st)  # noqa: E731
    else:
        func = lambda st, rule: expand_tracking(text, st, rule, track=False)[0]  # noqa: E731
    return func


def _const(value: str) -> Template:
    return lambda st, rule: value


Value = Callable[[EvalState], str]


@functools.lru_cache(maxsize=_CACHED)
def compile_value(text: str) -> Value:
    """A function expanding the test string *text* of a RewriteCond (no rule: no ``[B]``
    escaping): a constant, the variable's resolver itself for a lone ``%{VAR}``, else the
    general expansion."""
    tokens = tokenize(text)
    if not tokens:
        func = _constant("")
    elif len(tokens) == 1 and tokens[0][0] in (_SPAN, _RAW):
        func = _constant(tokens[0][1])
    elif len(tokens) == 1 and tokens[0][0] == _VAR:
        func = tokens[0][2]
    else:
        func = lambda st: expand_tracking(text, st, None, track=False)[0]  # noqa: E731
    return func


def _constant(value: str) -> Value:
    return lambda st: value


def expand_tracking(text: str, st: EvalState, rule: RewriteRule | None,
                    track: bool = True) -> tuple[str, int]:
    """``(expansion, unsafe_qmark)``: -1 no ``?``; 0 the deciding ``?`` is literal; 1 it came
    from an expansion."""
    qsl = rule is not None and rule.flags.qslast
    escape = rule is not None and rule.flags.escape_backrefs
    tracking = track
    unsafe = -1
    out: list[str] = []
    for tok in tokenize(text):
        kind = tok[0]
        if kind == _SPAN:
            piece = tok[1]
            if tracking and "?" in piece:
                unsafe = 0
                tracking = qsl
            out.append(piece)
            continue
        if kind == _RAW:
            out.append(tok[1])
            continue
        if kind == _VAR:
            piece = tok[2](st)
        elif kind == _REF:
            captures = st.br_rule if tok[1] == "$" else st.br_cond
            piece = captures.group(tok[2]) if captures is not None else ""
            if piece and escape:
                assert rule is not None
                flags = rule.flags
                piece = escape_backref(piece, flags.backref_escapes, flags.backref_noescapes,
                                       noplus=flags.backref_noplus, ctls=flags.backref_ctls)
            if not piece:
                continue  # an empty back-reference is not an "expansion" for the ? check
        else:
            piece = _lookup_map(tok, st, rule)
        if tracking and "?" in piece:
            unsafe = 1
            tracking = qsl
        out.append(piece)
    return "".join(out), unsafe


def _lookup_map(tok: Token, st: EvalState, rule: RewriteRule | None) -> str:
    _, name, key_tpl, dflt_tpl = tok
    key = expand_tracking(key_tpl, st, rule, track=False)[0]
    rmap = st.maps.get(name)
    value: str | None = None
    if rmap is not None:
        value, why = rmap.lookup(key, st.rng)
        if why:
            st.note_unsupported(why)
    if value is None and dflt_tpl:
        value = expand_tracking(dflt_tpl, st, rule, track=False)[0]
    return value or ""
