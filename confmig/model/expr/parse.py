"""Parse an ``ap_expr`` as Apache does: the scanner (:mod:`.scan`, util_expr_scan.l) feeds an
LALR parser built by Lark from ``grammars/ap_expr.lark`` (util_expr_parse.y), and the rule
callbacks below build :mod:`.nodes`, looking every name up as ``core_expr_lookup`` does.

What Apache refuses at parse time is refused here with its message (an unknown variable or
function, ``-R``/``-ipmatch`` with an argument that is not a constant network, a regex that
does not compile), which in an ``.htaccess`` makes the request answer 500.
"""

from __future__ import annotations

import functools
import ipaddress
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pcre2
from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError
from lark.lexer import Lexer

from confmig.model.expr import names
from confmig.model.expr.nodes import (
    And,
    Backref,
    Binary,
    Call,
    Compare,
    Concat,
    Cond,
    Const,
    In,
    Literal,
    Match,
    Not,
    Or,
    Unary,
    Variable,
    Word,
)
from confmig.model.expr.scan import ExprError, Tok, common_tokens, scan
from confmig.model.rewrite.regex import Regex

_COMPARE = {
    "OP_EQ": ("eq", True), "OP_NE": ("ne", True), "OP_LT": ("lt", True), "OP_LE": ("le", True),
    "OP_GT": ("gt", True), "OP_GE": ("ge", True), "OP_STR_EQ": ("eq", False),
    "OP_STR_NE": ("ne", False), "OP_STR_LT": ("lt", False), "OP_STR_LE": ("le", False),
    "OP_STR_GT": ("gt", False), "OP_STR_GE": ("ge", False)}


def parse_condition(text: str, *, restricted: bool = False, ssl_loaded: bool = False) -> Cond:
    """A boolean expression (``<If>``, ``Require expr``…); *restricted* refuses the
    functions Apache refuses in an ``.htaccess``."""
    return _parse(text, False, restricted, ssl_loaded)  # type: ignore[return-value]


def parse_string(text: str, *, restricted: bool = False, ssl_loaded: bool = False) -> Word:
    """A string expression (``AP_EXPR_FLAG_STRING_RESULT``: ``Require user``…)."""
    return _parse(text, True, restricted, ssl_loaded)  # type: ignore[return-value]


def _parse(text: str, string_result: bool, restricted: bool, ssl_loaded: bool) -> Cond | Word:
    if not string_result:
        # The commonest conditions, read in one pass into the scanner's tokens (common_tokens)
        # and built without Lark (_fast); anything else is scanned and parsed below.
        common = common_tokens(text)
        if common is not None:
            tree = _fast(common, _builder(restricted, ssl_loaded))
            if tree is not None:
                return tree
    tokens = scan(text, string_result)
    head: list[Tok] = []
    failure: ExprError | None = None
    if not string_result:
        # The commonest conditions are built here, without Lark (_fast): the first tokens are
        # read, and Lark is given the same tokens - and the scanner's error at the same point -
        # when the condition is longer or of another shape.
        try:
            for tok in tokens:
                head.append(tok)
                if len(head) > _FAST_LONGEST:
                    break
        except ExprError as exc:
            failure = exc
        else:
            if len(head) <= _FAST_LONGEST:
                tree = _fast(head, _builder(restricted, ssl_loaded))
                if tree is not None:
                    return tree
    lark = _parser(restricted, ssl_loaded)
    try:
        return lark.parse(_replay(head, failure, tokens))  # type: ignore[arg-type]
    except VisitError as exc:
        if isinstance(exc.orig_exc, ExprError):
            raise exc.orig_exc from None
        raise
    except UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        near = f", unexpected {token.type}" if isinstance(token, Token) else ""
        raise ExprError(f"syntax error{near}") from None


def _replay(head: list[Tok], failure: ExprError | None, rest: Iterator[Tok]) -> Iterator[Tok]:
    yield from head
    if failure is not None:
        raise failure
    yield from rest


# The token shapes _fast builds (EXPR_BOOL first): '%{VAR} =~ /re/' (or !~, /re/i),
# "%{VAR} == 'x'" (any comparison operator) and '-f %{VAR}' (any unary operator).  The
# builder's callbacks are called with the children Lark gives them, in the order Lark
# reduces them (so an unknown variable is refused before a regex that does not compile, as
# by Lark); tests/model/test_expr_fast_shapes.py compares the trees and refusals with Lark's.
_FAST_LONGEST = 8
_MATCH_OPS = frozenset({"OP_REG", "OP_NRE"})
_REGEXES = frozenset({"REGEX", "REGEX_I"})


def _fast(toks: list[Tok], b: _Builder) -> Cond | None:
    # The callbacks are given what they read of Lark's tokens (.type, .value, the text:
    # a Token is its value) - a Tok, or its value for the text - not Lark Tokens.
    n = len(toks)
    if n < 5 or toks[0].type != "EXPR_BOOL":
        return None
    types = [tok.type for tok in toks]
    if types[1] == "VAR_BEGIN" and types[2] == "ID" and types[3] == "VAR_END":
        if n == 6 and types[4] in _MATCH_OPS and types[5] in _REGEXES:
            word = b.variable([None, toks[2].value])
            op = b.match_op([toks[4]])
            return b.regex_match([word, op, b.regex([toks[5]])])
        if (n == 8 and types[4] in _COMPARE and types[5] == "STR_BEGIN"
                and types[6] == "STRING" and types[7] == "STR_END"):
            word = b.variable([None, toks[2].value])
            op = b.compare_op([toks[4]])
            text = b.string([b.literal([toks[6].value])])
            return b.comparison([word, op, b.quoted([None, text, None])])
        return None
    if (n == 5 and types[1] == "OP_UNARY" and types[2] == "VAR_BEGIN" and types[3] == "ID"
            and types[4] == "VAR_END"):
        return b.unary([toks[1].value, b.variable([None, toks[3].value])])
    return None


class _ScannerLexer(Lexer):
    """Lark's view of :func:`~confmig.model.expr.scan.scan` (a custom lexer gets the object
    passed to ``parse``: here the scanner's tokens)."""

    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: Iterator[Tok]) -> Iterator[Token]:  # type: ignore[override]
        for tok in data:
            yield Token(tok.type, tok.value)


class _Builder(Transformer):
    """Rule callbacks: node construction and name lookups (``ap_expr_*_make``);
    *restricted* refuses the restricted functions, *ssl_loaded* adds mod_ssl's names."""

    def __init__(self, restricted: bool, ssl_loaded: bool) -> None:
        super().__init__()
        self.restricted = restricted
        self.ssl_loaded = ssl_loaded

    # -- roots and conditions ---------------------------------------------------------------

    def bool_root(self, c: list[Any]) -> Cond:
        return c[1]

    def string_root(self, c: list[Any]) -> Word:
        return c[1]

    def or_(self, c: list[Any]) -> Cond:
        return Or(c[0], c[2])

    def and_(self, c: list[Any]) -> Cond:
        return And(c[0], c[2])

    def not_(self, c: list[Any]) -> Cond:
        return Not(c[1])

    def true(self, _c: list[Any]) -> Cond:
        return Const(True)

    def false(self, _c: list[Any]) -> Cond:
        return Const(False)

    def group(self, c: list[Any]) -> Cond:
        return c[1]

    def comparison(self, c: list[Any]) -> Cond:
        op, numeric = _COMPARE[c[1]]
        return Compare(op, numeric, c[0], c[2])

    def compare_op(self, c: list[Any]) -> str:
        return c[0].type

    def match_op(self, c: list[Any]) -> str:
        return c[0].type

    def regex_match(self, c: list[Any]) -> Cond:
        regex, groups = c[2]
        return Match(c[1] == "OP_NRE", c[0], regex, groups)

    def regex(self, c: list[Any]) -> tuple[Regex, int]:
        token = c[0]
        try:
            regex = Regex(token.value, token.type == "REGEX_I")
        except pcre2.PatternError as exc:  # Apache's own message
            raise ExprError("Failed to compile regular expression") from exc
        # Its capturing groups as Apache compiled it (at most 9 counted: only "any" matters,
        # a match with groups sets $0-$9); a second compile of the pattern, as the binding
        # compiles it, only to count them was a third of an <If>'s parse (issue 10).
        return regex, regex.captures

    def in_(self, c: list[Any]) -> Cond:
        target = c[2]
        if isinstance(target, Call):
            return In(c[0], list_function=target)
        return In(c[0], items=target)

    def list_call(self, c: list[Any]) -> Call:
        # No list function exists in core 2.4 (mod_ssl's PeerExtList needs a TLS peer).
        name = str(c[0])
        if self.ssl_loaded and name.lower() == "peerextlist":
            return Call(name.lower(), c[2])
        raise ExprError(names.not_found("List-returning function", name))

    def list_items(self, c: list[Any]) -> tuple[Word, ...]:
        return c[1]

    def words(self, c: list[Any]) -> tuple[Word, ...]:
        return tuple(w for w in c if not isinstance(w, Token))

    def unary(self, c: list[Any]) -> Cond:
        op, arg = str(c[0]), c[1]
        if op not in names.UNARY_OPERATORS:  # unary operators are case-sensitive
            raise ExprError(names.not_found("Unary operator", op))
        subnet = _constant_subnet(op, arg) if op == "R" else None
        return Unary(op, arg, subnet)

    def binary(self, c: list[Any]) -> Cond:
        op = str(c[1]).lower()
        if op not in names.BINARY_OPERATORS:
            raise ExprError(names.not_found("Binary operator", str(c[1])))
        subnet = _constant_subnet(str(c[1]), c[2]) if op == "ipmatch" else None
        return Binary(op, c[0], c[2], subnet)

    # -- words ------------------------------------------------------------------------------

    def concat(self, c: list[Any]) -> Word:
        return _concat(c[0], c[2])

    def digit(self, c: list[Any]) -> Word:
        return Literal(str(c[0]), digit=True)

    def backref(self, c: list[Any]) -> Word:
        return Backref(int(c[0]))

    def func_call(self, c: list[Any]) -> Word:
        return _call(str(c[0]), c[2], self.restricted)

    def quoted(self, c: list[Any]) -> Word:
        return c[1]

    def empty_string(self, _c: list[Any]) -> Word:
        return Literal("")

    def string(self, c: list[Any]) -> Word:
        parts: list[Word] = []
        for part in c:
            parts.extend(part.parts if isinstance(part, Concat) else (part,))
        return parts[0] if len(parts) == 1 else Concat(tuple(parts))

    def literal(self, c: list[Any]) -> Word:
        return Literal(str(c[0]))

    def variable(self, c: list[Any]) -> Word:
        name = str(c[1])
        if not names.variable_known(name, self.ssl_loaded):
            raise ExprError(names.not_found("Variable", name))
        upper = name.upper()
        found = _VARIABLES.get(upper)
        if found is None:
            found = Variable(upper)
            if upper in names.VARIABLES:  # (a fixed list; mod_ssl's SSL_* are not kept)
                found = _VARIABLES[upper] = Variable(sys.intern(upper))
        return found

    def var_func(self, c: list[Any]) -> Word:
        return _call(str(c[1]), c[3], self.restricted)


# One node per variable name, shared by the expressions that read it (a node is immutable):
# each %{QUERY_STRING} of a 1 MB file of <If> blocks was a node and an upper-cased name of its
# own, ~110 bytes of its expression's ~420 (issue 10).
_VARIABLES: dict[str, Variable] = {}


def _call(name: str, arg: Word, restricted: bool) -> Call:
    lower = name.lower()
    if lower not in names.STRING_FUNCTIONS:
        raise ExprError(names.not_found("Function", name))
    if restricted and lower in names.RESTRICTED_FUNCTIONS:
        raise ExprError(f"{lower} not available in restricted context")
    return Call(lower, arg)


def _concat(left: Word, right: Word) -> Word:
    parts = (*(left.parts if isinstance(left, Concat) else (left,)),
             *(right.parts if isinstance(right, Concat) else (right,)))
    return Concat(parts)


def _constant_subnet(op: str, arg: Word) -> str:
    """``subnet_parse_arg``: the argument must be a constant string (a quoted one; a bare
    number is not) that ``apr_ipsubnet_create`` accepts."""
    if not isinstance(arg, Literal) or arg.digit:
        raise ExprError(f"-{op} requires subnet/netmask as constant argument")
    if not valid_subnet(arg.text):
        raise ExprError("parsing of subnet/netmask failed")
    return arg.text


def valid_subnet(text: str) -> bool:
    """What ``apr_ipsubnet_create`` accepts: an address or a leading part of an IPv4
    address (``10.1``), with an optional ``/bits`` or ``/netmask``."""
    addr, _, mask = text.partition("/")
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        parts = addr.split(".")
        if not (1 <= len(parts) <= 4 and all(p.isdigit() and int(p) < 256 for p in parts)):
            return False
        ip = None
    if not mask:
        return True
    if mask.isdigit():
        limit = 128 if isinstance(ip, ipaddress.IPv6Address) else 32
        return 0 < int(mask) <= limit
    try:
        return ip is not None and ip.version == 4 and ipaddress.ip_address(mask).version == 4
    except ValueError:
        return False


def _grammar_text() -> str:
    """The grammar lives in the top-level ``grammars/`` folder of a checkout and is packaged
    as ``confmig/_grammars`` in a wheel (as the config grammar is)."""
    source_tree = Path(__file__).resolve().parents[3] / "grammars" / "ap_expr.lark"
    if source_tree.is_file():
        return source_tree.read_text(encoding="utf-8")
    return resources.files("confmig").joinpath("_grammars/ap_expr.lark").read_text("utf-8")


@functools.cache
def _builder(restricted: bool, ssl_loaded: bool) -> _Builder:
    return _Builder(restricted, ssl_loaded)


@functools.cache
def _parser(restricted: bool, ssl_loaded: bool) -> Lark:
    return Lark(_grammar_text(), parser="lalr", lexer=_ScannerLexer,
                transformer=_builder(restricted, ssl_loaded), maybe_placeholders=False)
