"""Evaluate a parsed ``ap_expr`` for one request, as ``server/util_expr_eval.c`` (2.4.x) does.

Values are Apache's C strings: compared byte by byte (``strcmp``), numbers read with
``apr_atoi64``, case folded in ASCII only.  The request is seen through a
:data:`~confmig.model.expr.Lookup` (``NAME`` variables, ``HTTP:``/``RESP:``/``ENV:``/
``NOTE:``/``OSENV:`` tables; None where the model does not know a value, which raises
:class:`ExprUnsupported`) and a clock.

:class:`ExprEvalError` is what makes Apache's ``ap_expr_exec`` return -1: the recursion limit
(``AP_EXPR_MAX_RECURSION``), a ``file()`` that cannot be read.  Each caller decides what that
means, as each Apache module does (``<If>``: false; ``Require expr``: 500; ``Header expr=``:
the header is set anyway).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import stat as stat_mod
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from confmig.model.expr import names
from confmig.model.expr.fnmatch import fnmatch
from confmig.model.expr.names import MAX_RECURSION
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
from confmig.model.netmatch import ip_matches
from confmig.model.rewrite.regex import Captures
from confmig.model.rewrite.uri import atoi

Lookup = Callable[[str], "str | None"]
# -F/-U/-A: (operator, argument) → the test's result, from a sub-request the caller makes
SubRequest = Callable[[str, str], bool]
# file(): MAX_FILE_SIZE in util_expr_eval.c.
MAX_FILE_SIZE = 10 * 1024 * 1024
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_PATH_SAFE = frozenset(b"$-_.+!*'(),:;@&=/~")
# The names Evaluation.variable answers itself, or not by a lookup of the name alone: the
# clock's, API_VERSION, HTTP2/IPV6 (off unless known), the request headers' (added to Vary),
# REMOTE_IDENT; any other name is the request's, looked up at once.
_OWN_VARIABLES = frozenset({"TIME_YEAR", "TIME_MON", "TIME_DAY", "TIME_HOUR", "TIME_MIN",
                            "TIME_SEC", "TIME_WDAY", "TIME", "API_VERSION", "HTTP2", "IPV6",
                            *names.HEADER_VARIABLES, "REMOTE_IDENT"})


class ExprUnsupported(Exception):
    """A value the model cannot know for this request (the caller reports it)."""


class ExprEvalError(Exception):
    """An evaluation Apache itself fails (``ap_expr_exec`` returns -1)."""


@dataclass(slots=True)
class Evaluation:
    """The state of one ``ap_expr_exec``: the request's lookups, the clock, the recursion
    level, the last regex match with groups (``$0``–``$9``), the headers to add to Vary and
    the sub-requests of ``-F``/``-U``/``-A`` (None: the caller cannot make one)."""

    lookup: Lookup
    now: float | None = None
    subrequest: SubRequest | None = None
    depth: int = 0
    source: Captures | None = None
    vary: list[str] = field(default_factory=list)

    # -- conditions -------------------------------------------------------------------------

    def test(self, tree: Cond) -> bool:
        """One ``ap_expr_exec`` of the condition *tree* for this evaluation's request (what
        :meth:`Expr.evaluate <confmig.model.expr.Expr.evaluate>` runs): the recursion level
        and ``$0``-``$9`` start afresh, and the headers it reads stay in ``vary`` only when
        it gives an answer (an exception leaves ``vary`` as it was).  A walk of many ``<If>``
        conditions asks one evaluation for each."""
        self.depth = 0
        self.source = None
        vary = self.vary
        mark = len(vary)
        try:
            return self.cond(tree)
        except BaseException:
            del vary[mark:]
            raise

    def cond(self, node: Cond) -> bool:
        depth = self.depth  # (the recursion limit: AP_EXPR_MAX_RECURSION)
        if depth >= MAX_RECURSION:
            raise ExprEvalError("Recursion limit reached")
        self.depth = depth + 1
        result = False
        while isinstance(node, Not):  # op_Not loops without recursing
            result = not result
            node = node.operand
        # (the node kinds are distinct classes: tested the commonest first, a <If>'s =~)
        if isinstance(node, Match):
            value = self._match(node)
        elif isinstance(node, Or):
            value = self.cond(node.left) or self.cond(node.right)
        elif isinstance(node, And):
            value = self.cond(node.left) and self.cond(node.right)
        elif isinstance(node, Compare):
            value = self._compare(node)
        elif isinstance(node, Const):
            value = node.value
        elif isinstance(node, In):
            value = self._in(node)
        elif isinstance(node, Unary):
            value = self._unary(node)
        else:
            value = self._binary(node)
        self.depth -= 1
        return value != result

    def _compare(self, node: Compare) -> bool:
        left, right = self.word(node.left), self.word(node.right)
        if node.numeric:
            a, b = atoi64(left), atoi64(right)
        else:
            a, b = _bytes(left), _bytes(right)  # type: ignore[assignment]
        return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
                "ge": a >= b}[node.op]

    def _match(self, node: Match) -> bool:
        subject = self.word(node.subject)
        captures = node.regex.search(subject)
        if captures is not None and captures.count > 1:
            self.source = captures
        elif captures is None and node.groups > 0:
            self.source = None
        return (captures is not None) != node.negate

    def _in(self, node: In) -> bool:
        needle = _bytes(self.word(node.needle))
        if node.list_function is not None:
            raise ExprUnsupported(f"{node.list_function.name}() (a TLS peer's extensions)")
        return any(_bytes(self.word(item)) == needle for item in node.items)

    def _unary(self, node: Unary) -> bool:
        op = node.op
        if op == "R":
            addr = self._known("REMOTE_ADDR")
            return ip_matches(node.subnet or "", addr)
        value = self.word(node.arg)
        if op in ("n", "z"):
            return (value == "") == (op == "z")
        if op == "T":
            return _true(value)
        if op in ("F", "U", "A"):
            if self.subrequest is None:
                raise ExprUnsupported(f"-{op} (a sub-request's answer)")
            return self.subrequest(op, value)
        return _file_test(op, value)

    def _binary(self, node: Binary) -> bool:
        left, right = self.word(node.left), self.word(node.right)
        if node.op == "ipmatch":
            try:
                ipaddress.ip_address(left)
            except ValueError:
                return False  # apr_sockaddr_info_get of a name: not an address to test
            return ip_matches(node.subnet or "", left)
        if node.op == "fnmatch":
            return fnmatch(right, left, pathname=True)
        return fnmatch(right, left, case_blind=node.op == "strcmatch")

    # -- words ------------------------------------------------------------------------------

    def word(self, node: Word) -> str:
        depth = self.depth  # (the recursion limit, as in cond)
        if depth >= MAX_RECURSION:
            raise ExprEvalError("Recursion limit reached")
        self.depth = depth + 1
        if isinstance(node, Variable):
            value = self.variable(node.name)
        elif isinstance(node, Literal):
            value = node.text
        elif isinstance(node, Concat):
            value = "".join(self.word(part) for part in node.parts)
        elif isinstance(node, Call):
            value = self.call(node.name, self.word(node.arg))
        else:
            value = self._backref(node)
        self.depth -= 1
        return value

    def _backref(self, node: Backref) -> str:
        source = self.source
        if source is None or node.index >= source.count:
            return ""
        return source.group(node.index)

    def variable(self, name: str) -> str:
        if name not in _OWN_VARIABLES:  # (most names: the request's, asked for at once)
            value = self.lookup(name)
            if value is None:
                self._unknown(name)
            return value  # type: ignore[return-value]
        if name in ("TIME_YEAR", "TIME_MON", "TIME_DAY", "TIME_HOUR", "TIME_MIN", "TIME_SEC",
                    "TIME_WDAY", "TIME"):
            return _time_variable(name, self.now)
        if name == "API_VERSION":
            return names.API_VERSION
        if name in ("HTTP2", "IPV6") and self.lookup(name) is None:
            return "off"
        header = names.HEADER_VARIABLES.get(name)
        if header is not None:
            if header != "Host":
                self.vary.append(header)
            return self.lookup("HTTP:" + header) or ""
        if name in ("REMOTE_IDENT",):
            return ""
        return self._known(name)

    def call(self, name: str, arg: str) -> str:
        if name in ("req", "http", "req_novary"):
            if name != "req_novary" and arg.lower() != "host":
                self.vary.append(arg)
            return self.lookup("HTTP:" + arg) or ""
        if name == "resp":
            return self.lookup("RESP:" + arg) or ""
        if name == "reqenv":
            return self.lookup("ENV:" + arg) or ""
        if name == "note":
            return self._known("NOTE:" + arg)
        if name == "env":
            for table in ("NOTE:", "ENV:"):
                value = self.lookup(table + arg)
                if value:
                    return value
            return self._known("OSENV:" + arg)
        if name == "osenv":
            return self._known("OSENV:" + arg)
        if name == "tolower":
            return arg.translate(_LOWER)
        if name == "toupper":
            return arg.translate(_UPPER)
        if name == "escape":
            return escape_path(arg)
        if name == "unescape":
            return unescape_keep_slashes(arg)
        if name == "base64":
            return base64.b64encode(_bytes(arg)).decode("ascii")
        if name == "unbase64":
            return _text(lenient_b64decode(arg).split(b"\0", 1)[0])
        if name == "sha1":
            return hashlib.sha1(_bytes(arg)).hexdigest()
        if name == "md5":
            return hashlib.md5(_bytes(arg)).hexdigest()
        if name == "file":
            return _read_file(arg)
        if name == "filesize":
            return _file_size(arg)
        raise ExprUnsupported(f"{name}() (depends on the APR library's version)")

    def _known(self, name: str) -> str:
        value = self.lookup(name)
        if value is None:
            self._unknown(name)
        return value  # type: ignore[return-value]

    @staticmethod
    def _unknown(name: str) -> NoReturn:
        """The model does not know *name*'s value for this request."""
        table, _, key = name.rpartition(":")
        if table == "OSENV":
            raise ExprUnsupported(f"the server process's environment variable {key}")
        if table == "NOTE":
            raise ExprUnsupported(f"the request note {key} (set by modules as they run)")
        raise ExprUnsupported(f"%{{{key}}}")


def atoi64(text: str) -> int:
    """``apr_atoi64`` (``strtoll``): C's ``atoi`` clamped to 64 bits."""
    return max(-(2**63), min(2**63 - 1, atoi(text)))


def escape_path(text: str) -> str:
    """``ap_escape_uri``: every byte but letters, digits and ``$-_.+!*'(),:;@&=/~`` as
    ``%xx`` (lower-case hex)."""
    out = []
    for byte in _bytes(text):
        if (48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122 or byte in _PATH_SAFE):
            out.append(chr(byte))
        else:
            out.append(f"%{byte:02x}")
    return "".join(out)


def unescape_keep_slashes(text: str) -> str:
    """``ap_unescape_url_keep2f(…, 0)``: ``%XX`` decoded except ``%2F`` (kept as written);
    a bad escape or an encoded NUL gives the empty string."""
    data = _bytes(text)
    out = bytearray()
    i = 0
    while i < len(data):
        byte = data[i]
        if byte != 0x25:
            out.append(byte)
            i += 1
            continue
        pair = data[i + 1:i + 3]
        if len(pair) < 2 or not all(c in b"0123456789abcdefABCDEF" for c in pair):
            return ""
        decoded = int(pair, 16)
        if decoded == 0:
            return ""
        if decoded == 0x2F:
            out += data[i:i + 3]
        else:
            out.append(decoded)
        i += 3
    return _text(bytes(out))


def lenient_b64decode(text: str) -> bytes:
    """``apr_base64_decode``: the base64 prefix of *text*, trailing partial groups kept."""
    data = _bytes(text)
    valid = len(data)
    for index, byte in enumerate(data):
        if not (48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122 or byte in b"+/"):
            valid = index
            break
    prefix = data[:valid]
    if len(prefix) % 4 == 1:
        prefix = prefix[:-1]
    return base64.b64decode(prefix + b"=" * (-len(prefix) % 4))


def _true(value: str) -> bool:
    """``op_T``: false for "", "0", and "off"/"no"/"false" in any case."""
    if not value:
        return False
    if value[0] in "oO":
        return value.lower() != "off"
    if value[0] in "nN":
        return value.lower() != "no"
    if value[0] in "fF":
        return value.lower() != "false"
    if value[0] == "0":
        return len(value) != 1
    return True


def _file_test(op: str, path: str) -> bool:
    try:
        st = os.lstat(path) if op in ("L", "h") else os.stat(path)
    except (OSError, ValueError):
        return False
    mode = st.st_mode
    if op == "d":
        return stat_mod.S_ISDIR(mode)
    if op == "e":
        return True
    if op == "f":
        return stat_mod.S_ISREG(mode)
    if op == "s":
        return stat_mod.S_ISREG(mode) and st.st_size > 0
    if op in ("L", "h"):
        return stat_mod.S_ISLNK(mode)
    # -x: APR_FINFO_PROT|APR_FINFO_LINK stats the link itself
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return False
    return bool(st.st_mode & 0o111)


def _read_file(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_SIZE:
                raise ExprEvalError(f"File {path} too large")
            data = handle.read(MAX_FILE_SIZE)
    except (OSError, ValueError) as exc:
        raise ExprEvalError(f"Cannot open file {path}") from exc
    return _text(data.split(b"\0", 1)[0])


def _file_size(path: str) -> str:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return "0"
    return str(st.st_size) if stat_mod.S_ISREG(st.st_mode) and st.st_size > 0 else "0"


def _time_variable(name: str, now: float | None) -> str:
    """``misc_var_fn``: the server's local time (``apr_time_exp_lt``)."""
    tm = time.localtime(time.time() if now is None else now)
    if name == "TIME_YEAR":
        return f"{tm.tm_year:04d}"
    if name == "TIME_MON":
        return f"{tm.tm_mon:02d}"
    if name == "TIME_DAY":
        return f"{tm.tm_mday:02d}"
    if name == "TIME_HOUR":
        return f"{tm.tm_hour:02d}"
    if name == "TIME_MIN":
        return f"{tm.tm_min:02d}"
    if name == "TIME_SEC":
        return f"{tm.tm_sec:02d}"
    if name == "TIME_WDAY":
        return str((tm.tm_wday + 1) % 7)  # C's tm_wday: Sunday is 0
    return (f"{tm.tm_year:04d}{tm.tm_mon:02d}{tm.tm_mday:02d}{tm.tm_hour:02d}"
            f"{tm.tm_min:02d}{tm.tm_sec:02d}")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")
