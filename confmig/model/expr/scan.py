"""The ``ap_expr`` scanner: ``server/util_expr_scan.l`` (2.4.x) as a small state machine.

flex picks, at each position, the rule with the longest match, the earlier rule on a tie;
:data:`_INITIAL_RULES` is that list in the file's order and :func:`_longest` applies the same
choice.  Inside strings, ``%{…}`` variables and ``m#…#`` regular expressions the scanner has
states of its own (``str``, ``var``, ``vararg``, ``regex``), kept here as a state stack as
flex's ``yy_push_state`` keeps it.  A scanner error (an unterminated string, a bad escape, a
string over Apache's 8 KiB buffer) is an :class:`ExprError` with Apache's message.

The patterns below are confmig's own fixed token shapes, so they use Python's ``re``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# MAX_STRING_LEN: the scanner's string and regex buffers (util_expr_private.h).
MAX_STRING_LEN = 8192
REGEX_DELIMITERS = "/#$%^,;:_?|-!.'\""


class ExprError(ValueError):
    """An expression Apache refuses to parse (the message is Apache's where it has one)."""


@dataclass(frozen=True, slots=True)
class Tok:
    type: str
    value: str = ""


# (pattern, token type or None to skip) in util_expr_scan.l's order, INITIAL state only.
_INITIAL_RULES: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(r"[ \t\n]+"), None),
    (re.compile(r"==?"), "OP_STR_EQ"),
    (re.compile(r"!="), "OP_STR_NE"),
    (re.compile(r"<"), "OP_STR_LT"),
    (re.compile(r"<="), "OP_STR_LE"),
    (re.compile(r">"), "OP_STR_GT"),
    (re.compile(r">="), "OP_STR_GE"),
    (re.compile(r"=~"), "OP_REG"),
    (re.compile(r"!~"), "OP_NRE"),
    (re.compile(r"and"), "OP_AND"),
    (re.compile(r"&&"), "OP_AND"),
    (re.compile(r"or"), "OP_OR"),
    (re.compile(r"\|\|"), "OP_OR"),
    (re.compile(r"not"), "OP_NOT"),
    (re.compile(r"!"), "OP_NOT"),
    (re.compile(r"\."), "OP_CONCAT"),
    (re.compile(r"-in"), "OP_IN"),
    (re.compile(r"-eq"), "OP_EQ"),
    (re.compile(r"-ne"), "OP_NE"),
    (re.compile(r"-ge"), "OP_GE"),
    (re.compile(r"-le"), "OP_LE"),
    (re.compile(r"-gt"), "OP_GT"),
    (re.compile(r"-lt"), "OP_LT"),
    (re.compile(r"lt"), "OP_LT"),
    (re.compile(r"le"), "OP_LE"),
    (re.compile(r"gt"), "OP_GT"),
    (re.compile(r"ge"), "OP_GE"),
    (re.compile(r"ne"), "OP_NE"),
    (re.compile(r"eq"), "OP_EQ"),
    (re.compile(r"in"), "OP_IN"),
    (re.compile(r"-[a-zA-Z_]"), "OP_UNARY"),
    (re.compile(r"-[a-zA-Z_][a-zA-Z_0-9]+"), "OP_BINARY"),
    (re.compile(r"true"), "TRUE"),
    (re.compile(r"false"), "FALSE"),
    (re.compile(r"-?[0-9]+"), "DIGIT"),
    (re.compile(r"[a-zA-Z][a-zA-Z0-9_]*"), "ID"),
]
_PUNCT = {"(": "LPAR", ")": "RPAR", "{": "LBRACE", "}": "RBRACE", ",": "COMMA", ":": "COLON"}
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
_OCTAL = re.compile(r"\\([0-7]{1,3})")
_DIGITS = re.compile(r"\\[0-9]+")
_PLAIN = re.compile(r"[^\\\n\"'%}$]+")
_ID = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")


def scan(text: str, string_result: bool = False) -> Iterator[Tok]:
    """The tokens of *text*; the first is ``EXPR_STRING`` or ``EXPR_BOOL``."""
    return _Scanner(text, string_result).tokens()


# The commonest whole conditions read in one pass (issue 10: the scanner's generator, a call
# and a Tok a token, was a third of the parse of a 1 MB file of <If> blocks).  A fixed pattern
# of confmig's own that recognises token shapes (no pattern from a config is compiled with
# ``re``): '%{NAME} =~ /re/' (or !~, m#re# with any delimiter but _, /re/i),
# "%{NAME} == 'x'" (any comparison operator; a string without \, a newline, % or $) and
# '-f %{NAME}' (a one-letter unary operator), with blanks where the scanner skips them.
_BLANKS = r"[ \t\n]*"
_NAME = r"[a-zA-Z][a-zA-Z0-9_]*"
_COMMON = re.compile(
    _BLANKS
    + r"(?:-(?P<unary>[a-zA-Z_])" + _BLANKS + r"%\{(?P<uname>" + _NAME + r")\}"
    + r"|%\{(?P<name>" + _NAME + r")\}" + _BLANKS
    + r"(?:(?P<mop>=~|!~)" + _BLANKS
    + r"""(?:/(?P<slash>[^/]*)/|m(?P<delim>[#$%^,;:?|\-!.'"])(?P<body>.*?)(?P=delim))"""
    + r"(?P<nocase>i)?"
    + r"|(?P<cop>==?|!=|<=?|>=?|-eq|-ne|-ge|-le|-gt|-lt|eq|ne|ge|le|gt|lt)" + _BLANKS
    + r"""(?:'(?P<single>[^\\\n%$']*)'|"(?P<double>[^\\\n%$"]*)")))"""
    + _BLANKS, re.DOTALL)
_COMPARE_TYPES = {
    "==": "OP_STR_EQ", "=": "OP_STR_EQ", "!=": "OP_STR_NE", "<": "OP_STR_LT",
    "<=": "OP_STR_LE", ">": "OP_STR_GT", ">=": "OP_STR_GE", "-eq": "OP_EQ", "-ne": "OP_NE",
    "-ge": "OP_GE", "-le": "OP_LE", "-gt": "OP_GT", "-lt": "OP_LT", "eq": "OP_EQ",
    "ne": "OP_NE", "ge": "OP_GE", "le": "OP_LE", "gt": "OP_GT", "lt": "OP_LT"}
# (a Tok is immutable: the tokens that carry no text of their own are shared)
_SHARED = {text: Tok(kind, text) for text, kind in
           (*_COMPARE_TYPES.items(), ("=~", "OP_REG"), ("!~", "OP_NRE"))}
_EXPR_BOOL, _VAR_BEGIN, _VAR_END = Tok("EXPR_BOOL"), Tok("VAR_BEGIN"), Tok("VAR_END")
_QUOTES = {q: (Tok("STR_BEGIN", q), Tok("STR_END", q)) for q in "'\""}


def common_tokens(text: str) -> list[Tok] | None:
    """What ``list(scan(text))`` gives for a condition of one of :data:`_COMMON`'s shapes, or
    None for any other text (the scanner reads it, and refuses what it refuses)."""
    m = _COMMON.fullmatch(text)
    if m is None:
        return None
    unary, name, mop, cop = m.group("unary", "name", "mop", "cop")
    if unary is not None:
        return [_EXPR_BOOL, Tok("OP_UNARY", unary), _VAR_BEGIN, Tok("ID", m.group("uname")),
                _VAR_END]
    head = [_EXPR_BOOL, _VAR_BEGIN, Tok("ID", name), _VAR_END]
    if mop is not None:
        body = m.group("slash")
        if body is None:
            body = m.group("body")
            if m.group("delim") in body:  # (the regex ends at the first delimiter)
                return None
        if len(body) >= MAX_STRING_LEN:  # "Regexp too long"
            return None
        head += (_SHARED[mop], Tok("REGEX" if m.group("nocase") is None else "REGEX_I", body))
        return head
    quote, string = ("'", m.group("single")) if m.group("double") is None else (
        '"', m.group("double"))
    if len(string) >= MAX_STRING_LEN:  # "String too long"
        return None
    begin, end = _QUOTES[quote]
    head += (_SHARED[cop], begin, Tok("STRING", string), end) if string else (
        _SHARED[cop], begin, end)
    return head


class _Scanner:
    def __init__(self, text: str, string_result: bool) -> None:
        self.s = text
        self.i = 0
        self.string_result = string_result
        self.states: list[str] = ["str" if string_result else "initial"]
        self.buf: list[str] = []
        self.delimiter = ""  # the quote that opened the current string ("" in string mode)

    def tokens(self) -> Iterator[Tok]:
        yield Tok("EXPR_STRING" if self.string_result else "EXPR_BOOL")
        while True:
            state = self.states[-1]
            if state == "initial":
                if self.i >= len(self.s):
                    return
                token = self._initial()
            elif state == "str":
                token = self._string()
            elif state == "var":
                token = self._variable()
            else:  # vararg
                token = self._vararg()
            if token is _END:
                return
            if token is not None:
                yield token

    # -- INITIAL ----------------------------------------------------------------------------

    def _initial(self) -> Tok | None:
        s, i = self.s, self.i
        ch = s[i]
        if ch in "\"'":
            self.delimiter = ch
            self.buf = []
            self.i += 1
            self.states[-1] = "str"
            return Tok("STR_BEGIN", ch)
        if s.startswith("%{", i):
            self.i += 2
            self.states.append("var")
            return Tok("VAR_BEGIN")
        if ch == "$" and i + 1 < len(s) and s[i + 1].isdigit():
            self.i += 2
            return Tok("BACKREF", s[i + 1])
        regex = self._regex_start()
        if regex is not None:
            return regex
        length, kind = _longest(s, i)
        if length == 0:
            if ch in _PUNCT:
                self.i += 1
                return Tok(_PUNCT[ch], ch)
            raise ExprError(f"Parse error near '{ch}'")
        self.i += length
        if kind is None:
            return None
        value = s[i:i + length]
        if kind in ("OP_UNARY", "OP_BINARY"):
            value = value[1:]
        return Tok(kind, value)

    def _regex_start(self) -> Tok | None:
        """``m`` + a delimiter, or ``/``: a regular expression up to the same delimiter, then
        an optional ``i``.  ``m`` followed by more name characters is a name (longer match)."""
        s, i = self.s, self.i
        if s[i] == "/":
            delimiter, start = "/", i + 1
        elif s[i] == "m" and i + 1 < len(s) and s[i + 1] in REGEX_DELIMITERS:
            name = _ID.match(s, i)
            if name is not None and name.end() - i > 2:
                return None
            delimiter, start = s[i + 1], i + 2
        else:
            return None
        end = s.find(delimiter, start)
        if end < 0:
            raise ExprError("syntax error: unterminated regular expression")
        if end - start >= MAX_STRING_LEN:
            raise ExprError("Regexp too long")
        self.i = end + 1
        if self.i < len(s) and s[self.i] == "i":
            self.i += 1
            return Tok("REGEX_I", s[start:end])
        return Tok("REGEX", s[start:end])

    # -- str and vararg ---------------------------------------------------------------------

    def _string(self) -> Tok | object | None:
        s, i = self.s, self.i
        if i >= len(s):
            if not self.string_result:
                raise ExprError("Unterminated string or variable")
            text = self._flush()
            self.states[-1] = "initial"
            return Tok("STRING", text)
        ch = s[i]
        if ch in "\"'":
            if ch != self.delimiter:
                self._append(ch)
                self.i += 1
                return None
            if not self.buf:
                self.i += 1
                self.states[-1] = "initial"
                return Tok("STR_END", ch)
            return Tok("STRING", self._flush())
        if ch in "%}$" and not s.startswith("%{", i) and not _backref_at(s, i):
            self._append(ch)
            self.i += 1
            return None
        return self._common("str")

    def _vararg(self) -> Tok | object | None:
        s, i = self.s, self.i
        if i >= len(s):
            raise ExprError("Unterminated string or variable")
        ch = s[i]
        if ch == "}":
            if self.buf:
                return Tok("STRING", self._flush())
            self.i += 1
            self.states.pop()
            return Tok("VAR_END")
        if ch in "%$" and not s.startswith("%{", i) and not _backref_at(s, i):
            self._append(ch)
            self.i += 1
            return None
        if ch in "\"'":
            # No rule of util_expr_scan.l takes a quote here (the scanner jams).
            raise ExprError(f"Parse error near '{ch}'")
        return self._common("vararg")

    def _common(self, state: str) -> Tok | None:
        """The rules ``str`` and ``vararg`` share: escapes, ``$N``, ``%{``, plain text."""
        s, i = self.s, self.i
        ch = s[i]
        if ch == "\n":
            raise ExprError("Unterminated string or variable")
        if ch == "\\":
            octal, digits = _OCTAL.match(s, i), _DIGITS.match(s, i)
            if digits is not None and (octal is None or digits.end() > octal.end()):
                raise ExprError("Bad escape sequence")
            if octal is not None:
                value = int(octal.group(1), 8)
                if value > 0xFF:
                    raise ExprError("Escape sequence out of bound")
                self._append(chr(value) if value < 0x80 else chr(0xDC00 + value))
                self.i = octal.end()
                return None
            if i + 1 >= len(s):  # a lone backslash at the end: no rule matches
                raise ExprError("Unterminated string or variable")
            nxt = s[i + 1]
            self._append(_ESCAPES.get(nxt, nxt))
            self.i += 2
            return None
        if _backref_at(s, i):
            if self.buf:
                return Tok("STRING", self._flush())
            self.i += 2
            return Tok("BACKREF", s[i + 1])
        if s.startswith("%{", i):
            if self.buf:
                return Tok("STRING", self._flush())
            self.i += 2
            self.states.append("var")
            return Tok("VAR_BEGIN")
        plain = _PLAIN.match(s, i)
        if plain is None:  # pragma: no cover - every other character is handled above
            raise ExprError(f"Parse error near '{ch}' in {state}")
        for c in plain.group(0):
            self._append(c)
        self.i = plain.end()
        return None

    # -- var --------------------------------------------------------------------------------

    def _variable(self) -> Tok | object:
        s, i = self.s, self.i
        if i >= len(s):
            raise ExprError("Unterminated string or variable")
        ch = s[i]
        name = _ID.match(s, i)
        if name is not None:
            self.i = name.end()
            return Tok("ID", name.group(0))
        if ch == "}":
            self.i += 1
            self.states.pop()
            return Tok("VAR_END")
        if ch == ":":
            self.i += 1
            self.states[-1] = "vararg"
            self.buf = []
            return Tok("COLON", ":")
        raise ExprError(f"Invalid character in variable name '{ch}'")

    # -- the string buffer ------------------------------------------------------------------

    def _append(self, ch: str) -> None:
        self.buf.append(ch)
        if len(self.buf) >= MAX_STRING_LEN:
            raise ExprError("String too long")

    def _flush(self) -> str:
        text = "".join(self.buf)
        self.buf = []
        return text


_END = object()


def _backref_at(s: str, i: int) -> bool:
    return s[i] == "$" and i + 1 < len(s) and s[i + 1].isdigit()


def _first_characters(pattern: str) -> str:
    """The characters a match of one of :data:`_INITIAL_RULES`' patterns can start with
    (they are written in a few shapes: a literal, ``\\`` + a character, ``-?`` + a class, a
    class)."""
    optional = ""
    if pattern.startswith("-?"):
        optional, pattern = "-", pattern[2:]
    if pattern.startswith("\\"):
        return optional + pattern[1]
    if not pattern.startswith("["):
        return optional + pattern[0]
    chars, i = [optional], 1
    while pattern[i] != "]":
        if pattern[i] == "\\":
            chars.append({"t": "\t", "n": "\n"}[pattern[i + 1]])
            i += 2
        elif pattern[i + 1] == "-" and pattern[i + 2] != "]":
            chars.extend(chr(c) for c in range(ord(pattern[i]), ord(pattern[i + 2]) + 1))
            i += 3
        else:
            chars.append(pattern[i])
            i += 1
    return "".join(chars)


# The rules that can match at a character, in the file's order: flex's choice among them is
# its choice among all (a rule that cannot start there matches nothing).  _longest tried the
# 36 patterns at every token (issue 10: a third of an <If>'s parse).
_RULES_AT: dict[str, tuple[tuple[re.Pattern[str], str | None], ...]] = {}
for _rule in _INITIAL_RULES:
    for _ch in _first_characters(_rule[0].pattern):
        _RULES_AT[_ch] = (*_RULES_AT.get(_ch, ()), _rule)
del _rule, _ch


def _longest(s: str, i: int) -> tuple[int, str | None]:
    """flex's choice among :data:`_INITIAL_RULES` at *i*: the longest match, the earliest
    rule on a tie (0 when none matches)."""
    best, kind = 0, None
    for pattern, token in _RULES_AT.get(s[i], ()):
        m = pattern.match(s, i)
        if m is not None and m.end() - i > best:
            best, kind = m.end() - i, token
    return best, kind
