"""The part of ``ap_expr`` real configurations use in ``<If>``, ``Require expr`` and
``Header … expr=``: parsing into a small tree, and evaluating it against a variable lookup.

:meth:`Expr.evaluate` raises :class:`ExprUnsupported` when it needs something the model does
not know (a variable, a function); callers report it and take the condition as false.
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from confmig.model.mapping import RegexError, compile_config_regex
from confmig.model.netmatch import ip_matches
from confmig.model.rewrite.regex import Regex
from confmig.model.rewrite.uri import atoi
from confmig.model.wildcard import fnmatch_regex


class ExprError(ValueError):
    """An expression Apache would refuse to parse."""


class ExprUnsupported(Exception):
    """A variable or function the model cannot evaluate for this request."""


Lookup = Callable[[str], "str | None"]


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed ``ap_expr`` (boolean).  :meth:`evaluate` raises :class:`ExprUnsupported`
    when it needs something the model does not know (the caller reports it)."""

    source: str
    tree: tuple[Any, ...]

    @classmethod
    def parse(cls, text: str) -> Expr:
        parser = _ExprParser(text)
        tree = parser.expr()
        parser.expect_end()
        return cls(text, tree)

    def evaluate(self, lookup: Lookup) -> bool:
        return bool(_eval_bool(self.tree, lookup))


_WORD_OPS = ("-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-ipmatch", "-strmatch", "-strcmatch",
             "-fnmatch")
_UNARY_OPS = ("-z", "-n", "-f", "-d", "-s", "-e", "-l", "-L", "-h", "-x", "-T", "-R", "-F",
              "-U", "-A")


class _ExprParser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def peek(self, token: str) -> bool:
        self.ws()
        if not self.s.startswith(token, self.i):
            return False
        # A word operator (``in``, ``true``) must not be the start of a longer word.
        end = self.i + len(token)
        return not (token[-1].isalpha() and end < len(self.s)
                    and (self.s[end].isalnum() or self.s[end] == "_"))

    def take(self, token: str) -> bool:
        if self.peek(token):
            self.i += len(token)
            return True
        return False

    def expect_end(self) -> None:
        self.ws()
        if self.i != len(self.s):
            raise ExprError(f"syntax error near '{self.s[self.i:self.i + 20]}'")

    def expr(self) -> tuple[Any, ...]:
        left = self.conj()
        while self.take("||"):
            left = ("or", left, self.conj())
        return left

    def conj(self) -> tuple[Any, ...]:
        left = self.unary()
        while self.take("&&"):
            left = ("and", left, self.unary())
        return left

    def unary(self) -> tuple[Any, ...]:
        if self.take("!"):
            return ("not", self.unary())
        if self.peek("("):
            save = self.i
            self.take("(")
            try:
                inner = self.expr()
                if self.take(")"):
                    return inner
            except ExprError:
                pass
            self.i = save
        if self.take("true"):
            return ("const", True)
        if self.take("false"):
            return ("const", False)
        for op in _UNARY_OPS:
            if self.peek(op) and not self.peek(op + "-"):
                self.i += len(op)
                return ("unop", op, self.word())
        left = self.word()
        self.ws()
        for op in ("==", "!=", "<=", ">=", "=~", "!~", "<", ">", "="):
            if self.take(op):
                if op in ("=~", "!~"):
                    return ("match", op == "!~", left, self.regex())
                return ("cmp", "==" if op == "=" else op, left, self.word())
        for op in _WORD_OPS:
            if self.take(op):
                return ("cmp", op, left, self.word())
        if self.take("in"):
            return ("in", left, self.word_list())
        raise ExprError(f"syntax error near '{self.s[self.i:self.i + 20]}'")

    def word_list(self) -> tuple[Any, ...]:
        self.ws()
        if not self.take("{"):
            return ("list", self.word())
        items = [self.word()]
        while self.take(","):
            items.append(self.word())
        if not self.take("}"):
            raise ExprError("missing '}' in word list")
        return ("items", *items)

    def regex(self) -> Regex:
        self.ws()
        s = self.s
        if s.startswith("m", self.i) and self.i + 1 < len(s) and not s[self.i + 1].isalnum():
            delim = s[self.i + 1]
            start = self.i + 2
        elif s.startswith("/", self.i):
            delim, start = "/", self.i + 1
        else:
            raise ExprError("regular expression expected")
        end = start
        while end < len(s) and s[end] != delim:
            end += 2 if s[end] == "\\" else 1
        if end >= len(s):
            raise ExprError("unterminated regular expression")
        body = s[start:end]
        self.i = end + 1
        flags = ""
        while self.i < len(s) and s[self.i] == "i":
            flags += "i"
            self.i += 1
        try:
            return compile_config_regex(body, nocase="i" in flags)
        except RegexError as exc:
            raise ExprError(f"cannot compile regular expression '{body}': {exc}") from exc

    def word(self) -> tuple[Any, ...]:
        parts = [self.atom()]
        while self.take("."):
            parts.append(self.atom())
        return parts[0] if len(parts) == 1 else ("concat", *parts)

    def atom(self) -> tuple[Any, ...]:
        self.ws()
        s = self.s
        if self.i >= len(s):
            raise ExprError("unexpected end of expression")
        ch = s[self.i]
        if ch in "'\"":
            end = self.i + 1
            pieces: list[tuple[Any, ...]] = []
            buf = ""
            while end < len(s) and s[end] != ch:
                if s[end] == "\\" and end + 1 < len(s):
                    buf += s[end + 1]
                    end += 2
                    continue
                if s.startswith("%{", end):
                    close = s.find("}", end)
                    if close < 0:
                        raise ExprError("unterminated variable")
                    if buf:
                        pieces.append(("str", buf))
                        buf = ""
                    pieces.append(_var(s[end + 2:close]))
                    end = close + 1
                    continue
                buf += s[end]
                end += 1
            if end >= len(s):
                raise ExprError("unterminated string")
            self.i = end + 1
            if buf or not pieces:
                pieces.append(("str", buf))
            return pieces[0] if len(pieces) == 1 else ("concat", *pieces)
        if s.startswith("%{", self.i):
            close = s.find("}", self.i)
            if close < 0:
                raise ExprError("unterminated variable")
            name = s[self.i + 2:close]
            self.i = close + 1
            return _var(name)
        if ch.isdigit() or (ch == "-" and self.i + 1 < len(s) and s[self.i + 1].isdigit()):
            end = self.i + 1
            while end < len(s) and s[end].isdigit():
                end += 1
            text = s[self.i:end]
            self.i = end
            return ("str", text)
        if ch.isalpha():
            end = self.i
            while end < len(s) and (s[end].isalnum() or s[end] == "_"):
                end += 1
            name = s[self.i:end]
            self.i = end
            if self.take("("):
                arg = self.word()
                if not self.take(")"):
                    raise ExprError(f"missing ')' after {name}(")
                return ("func", name.lower(), arg)
            raise ExprError(f"syntax error near '{name}'")
        if ch == "$" and self.i + 1 < len(s) and s[self.i + 1].isdigit():
            self.i += 2
            return ("backref", int(s[self.i - 1]))
        raise ExprError(f"syntax error near '{s[self.i:self.i + 20]}'")


def _var(name: str) -> tuple[Any, ...]:
    func, sep, arg = name.partition(":")
    if sep:
        return ("func", func.lower(), ("str", arg))
    return ("var", name)


def _eval_word(node: tuple[Any, ...], lookup: Lookup) -> str:
    kind = node[0]
    if kind == "str":
        return node[1]
    if kind == "concat":
        return "".join(_eval_word(part, lookup) for part in node[1:])
    if kind == "var":
        value = lookup(node[1])
        if value is None:
            raise ExprUnsupported(f"%{{{node[1]}}}")
        return value
    if kind == "func":
        name, arg = node[1], _eval_word(node[2], lookup)
        if name == "tolower":
            return arg.lower()
        if name == "toupper":
            return arg.upper()
        key = {"req": "HTTP:", "http": "HTTP:", "req_novary": "HTTP:", "resp": "RESP:",
               "env": "ENV:", "reqenv": "ENV:", "osenv": "OSENV:", "note": "NOTE:"}.get(name)
        if key is None:
            raise ExprUnsupported(f"{name}()")
        value = lookup(key + arg)
        if value is None:
            raise ExprUnsupported(f"%{{{name}:{arg}}}")
        return value
    if kind == "backref":
        raise ExprUnsupported("regex back-references in expressions")
    raise ExprUnsupported(kind)


def _eval_bool(node: tuple[Any, ...], lookup: Lookup) -> bool:
    kind = node[0]
    if kind == "const":
        return node[1]
    if kind == "not":
        return not _eval_bool(node[1], lookup)
    if kind == "and":
        return _eval_bool(node[1], lookup) and _eval_bool(node[2], lookup)
    if kind == "or":
        return _eval_bool(node[1], lookup) or _eval_bool(node[2], lookup)
    if kind == "match":
        subject = _eval_word(node[2], lookup)
        return (node[3].search(subject) is None) == node[1]
    if kind == "in":
        value = _eval_word(node[1], lookup)
        items = node[2][1:] if node[2][0] == "items" else (node[2][1],)
        return any(value == _eval_word(item, lookup) for item in items)
    if kind == "unop":
        return _unary(node[1], _eval_word(node[2], lookup), lookup)
    if kind == "cmp":
        return _compare(node[1], _eval_word(node[2], lookup), _eval_word(node[3], lookup))
    raise ExprUnsupported(kind)


def _unary(op: str, value: str, lookup: Lookup) -> bool:
    if op == "-z":
        return value == ""
    if op == "-n":
        return value != ""
    if op in ("-T",):
        return value.lower() not in ("", "0", "off", "false", "no")
    if op in ("-f", "-d", "-s", "-e", "-l", "-L", "-h", "-x"):
        try:
            st = os.lstat(value) if op in ("-l", "-L", "-h") else os.stat(value)
        except (OSError, ValueError):
            return False
        if op == "-f":
            return stat_mod.S_ISREG(st.st_mode)
        if op == "-d":
            return stat_mod.S_ISDIR(st.st_mode)
        if op == "-s":
            return stat_mod.S_ISREG(st.st_mode) and st.st_size > 0
        if op == "-e":
            return True
        if op == "-x":
            return bool(st.st_mode & 0o111) and not stat_mod.S_ISDIR(st.st_mode)
        return stat_mod.S_ISLNK(st.st_mode)
    if op == "-R":
        addr = lookup("REMOTE_ADDR") or ""
        return ip_matches(value, addr)
    raise ExprUnsupported(f"unary operator {op}")


def _compare(op: str, left: str, right: str) -> bool:
    if op in ("==", "!=", "<", "<=", ">", ">="):
        result = {"==": left == right, "!=": left != right, "<": left < right,
                  "<=": left <= right, ">": left > right, ">=": left >= right}[op]
        return result
    if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
        a, b = atoi(left), atoi(right)
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b,
                "-ge": a >= b}[op]
    if op == "-ipmatch":
        return ip_matches(right, left)
    if op in ("-strmatch", "-strcmatch", "-fnmatch"):
        regex = fnmatch_regex(right.lower() if op == "-strcmatch" else right)
        return regex.search(left.lower() if op == "-strcmatch" else left) is not None
    raise ExprUnsupported(f"operator {op}")


_PARSED: dict[str, Expr] = {}


def parse_cached(text: str) -> Expr:
    """``Expr.parse(text)``, parsed once per text (expressions come from the configuration)."""
    found = _PARSED.get(text)
    if found is None:
        found = _PARSED[text] = Expr.parse(text)
    return found
