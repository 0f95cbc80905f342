"""The commonest ``ap_expr`` conditions are read in one pass of a fixed pattern
(:func:`~confmig.model.expr.scan.common_tokens`, issue 10: the scanner's generator was a third
of an ``<If>``'s parse) into exactly the tokens the scanner gives; anything else - and anything
the scanner refuses - is left to the scanner.  Compared with ``scan()`` on the conditions of
tests/model/test_expr_fast_shapes.py and generated near-misses (escapes, quotes, every regex
delimiter, ``/re/i``, blanks, glued operators, unknown names, ``%{HTTP:X}``, unterminated forms,
the scanner's length limits)."""

from __future__ import annotations

import itertools
import random

from confmig.model.expr.scan import MAX_STRING_LEN, REGEX_DELIMITERS, ExprError, common_tokens, scan
from tests.differential.sites_expr import EXPRESSIONS
from tests.model.test_expr_fast_shapes import _generated as _fast_shapes_conditions

_BLANKS = ["", " ", "  ", "\t", "\n", " \n\t"]
_LEFTS = ["%{QUERY_STRING}", "%{x}", "%{BOGUS_1}", "%{HTTP:X}", "%{ QUERY_STRING}",
          "%{QUERY_STRING }", "%{1X}", "%{_X}", "%{X-Y}", "%{tolower:x}", "%{X", "%X}", "%{}",
          "{X}", "'a'", "-f %{X}"]
_OPS = ["==", "=", "!=", "<", "<=", ">", ">=", "=~", "!~", "-eq", "-ne", "-lt", "-le", "-gt",
        "-ge", "eq", "ne", "lt", "le", "gt", "ge", "===", "=!", "~", "-in", "in", "-eqx", "eqx",
        "-strmatch", "&&", "=~~", "< =", "! ="]
_RIGHTS = ["/q1/", "/q1/i", "/q1/in", "/q1/ i", "/q1/I", "/a\\/b/", "//", "//i", "/a b/",
           "/a\nb/", "/'\"%{X}$1/", "/x", "/", "m#a#", "m#a#i", "m#a", "m##", "m#a#b#",
           "m_a_", "m__", "ma", "mx/a/", "m #a#", "M#a#", "'x'", '"x"', "''", '""', "'a\"b'",
           "\"a'b\"", "'a b}{'", "'a\\'b'", "'\\101'", "'\\n'", "'%{X}'", "'a%b'", "'a$b'",
           "'$1'", "'a\nb'", "'x", '"x', "'x\"", "x", "10", "-1", "%{X}", "'x'i", "'x''y'",
           "'\u00e9\x00\x7f'", "/\u00e9/"]
_TAILS = ["", " ", "\n", " x", " && true", "}", "'", "/"]


def _near_misses() -> list[str]:
    rng = random.Random(10)
    out = [f"{left}{b1}{op}{b2}{right}{tail}"
           for left, op, right, tail in itertools.product(_LEFTS, _OPS, _RIGHTS, _TAILS)
           for b1, b2 in [(rng.choice(_BLANKS), rng.choice(_BLANKS))]]
    out += [f"{b0}-{u}{b1}%{{{v}}}{b2}" for u, v, b0, b1, b2 in itertools.product(
        ["f", "d", "z", "R", "_", "i", "e", "m", "1", "ff", "in", "eq", "-", ""],
        ["X", "QUERY_STRING", "HTTP:X", "x y"], _BLANKS[:3], _BLANKS, _BLANKS[:3])]
    # every delimiter m can take, glued to the operator or not, with the delimiter inside
    for d, glue, nocase in itertools.product(REGEX_DELIMITERS + "ma1 ", ["", " "], ["", "i"]):
        out += [f"%{{X}} =~{glue}m{d}a{d}{nocase}", f"%{{X}} !~{glue}m{d}a{d}b{d}{nocase}",
                f"%{{X}} =~{glue}m{d}{d}{nocase}", f"%{{X}} =~{glue}m{d}a{nocase}"]
    # the scanner's limits: a regex of MAX_STRING_LEN characters, a string of MAX_STRING_LEN - 1
    for n in (MAX_STRING_LEN - 2, MAX_STRING_LEN - 1, MAX_STRING_LEN, MAX_STRING_LEN + 1):
        out += [f"%{{X}} =~ /{'a' * n}/", f"%{{X}} =~ m#{'a' * n}#i", f"%{{X}} == '{'a' * n}'",
                f'%{{X}} -eq "{"a" * n}"']
    # random soups of the pieces
    pieces = [*_LEFTS, *_OPS, *_RIGHTS, *_BLANKS, "-f", "%{", "}", "m", "#", "i"]
    out += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(6000)]
    return out


def _scanned(text: str) -> list[object] | str:
    try:
        return list(scan(text))
    except ExprError as exc:
        return f"ExprError: {exc}"


def test_common_tokens_are_the_scanners() -> None:
    texts = _fast_shapes_conditions() + _near_misses() + [e for _, e, _, _ in EXPRESSIONS]
    read = refused = 0
    for text in texts:
        tokens = common_tokens(text)
        if tokens is None:
            refused += isinstance(_scanned(text), str)
            continue
        assert tokens == _scanned(text), text
        read += 1
    assert read > 3500  # (the shapes were met)
    assert refused > 100_000  # (and texts the scanner refuses, all left to it)


def test_the_commonest_shapes_are_read() -> None:
    for text in ("%{QUERY_STRING} =~ /q17036/", "%{REQUEST_URI} !~ m#^/a#i",
                 "%{HTTP_HOST} == 'example.org'", '%{X} -eq "1"', "-f %{REQUEST_FILENAME}",
                 " %{X}\t=~\n/a b/i ", "%{X} ne ''"):
        assert common_tokens(text) == list(scan(text)), text
