"""The ``ap_expr`` scanner tries at a position only the rules that can start with its character
(issue 10: it tried all 36 patterns at every token).  Its choice - and so every token - is the
one trying every rule in the file's order gives: compared at every position of generated
strings, and as token streams of the test suite's expressions and generated ones."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from confmig.model.expr import scan as scan_module
from confmig.model.expr.scan import _INITIAL_RULES, ExprError, _longest, scan
from tests.differential.sites_expr import EXPRESSIONS


def _longest_of_all(s: str, i: int) -> tuple[int, str | None]:
    """flex's choice trying every rule (the scanner's before this change)."""
    best, kind = 0, None
    for pattern, token in _INITIAL_RULES:
        m = pattern.match(s, i)
        if m is not None and m.end() - i > best:
            best, kind = m.end() - i, token
    return best, kind


_ALPHABET = (" \t\n=!<>~&|.-_0123456789aAnNodtlgeqirufsmxzZ(){},:%$'\"/#\\é\x00\x7f"
             "\u00a0\u0660")
_WORDS = ["and", "or", "not", "lt", "le", "gt", "ge", "ne", "eq", "in", "true", "false",
          "-in", "-eq", "-ne", "-ge", "-le", "-gt", "-lt", "-f", "-ipmatch", "-strmatch", "-R",
          "-z", "-n", "==", "=", "!=", "=~", "!~", "<=", ">=", "&&", "||", "!", ".", "-1", "42",
          "%{QUERY_STRING}", "%{HTTP:X-A}", "%{tolower:%{X}}", "'a'", '"b"', "/q1/", "m#x#i",
          "$1", "(", ")", "{", "}", ",", "andx", "notx", "true1", "in_", "-_", "-a_1", "x",
          "tolower(", "req('h')", " ", "\t", "inn", "eqq", "-inx", "--1", "-", "1a"]


def _generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = [rng.choice(_WORDS) if rng.random() < 0.6 else
                 "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 4)))
                 for _ in range(rng.randint(1, 8))]
        out.append(rng.choice(["", " "]).join(parts))
    return out


def test_every_rule_starts_where_it_is_tried() -> None:
    # every character a rule's match can start with (ASCII and beyond) is one it is tried at
    tails = {"", "a", "1", "_", *(word[1:] for word in _WORDS)}
    for pattern, token in _INITIAL_RULES:
        for code in range(0x2000):
            ch = chr(code)
            starts = any(pattern.match(ch + tail) for tail in tails)
            assert starts == ((pattern, token) in scan_module._RULES_AT.get(ch, ())), (
                pattern.pattern, ch)


def test_same_choice_at_every_position() -> None:
    texts = ["".join(p) for n in (1, 2) for p in itertools.product(_ALPHABET, repeat=n)]
    texts += _WORDS + _generated(6000, 1) + [e for _, e, _, _ in EXPRESSIONS]
    positions = 0
    for text in texts:
        for i in range(len(text)):
            assert _longest(text, i) == _longest_of_all(text, i), (text, i)
            positions += 1
    assert positions > 50_000


def _tokens(text: str, string_result: bool) -> list[object]:
    try:
        return list(scan(text, string_result))
    except ExprError as exc:
        return [f"ExprError: {exc}"]


@pytest.mark.parametrize("string_result", [False, True])
def test_same_tokens(monkeypatch: pytest.MonkeyPatch, string_result: bool) -> None:
    texts = [e for _, e, _, _ in EXPRESSIONS] + _WORDS + _generated(4000, 2)
    texts += [f'%{{QUERY_STRING}} =~ /q{i}/' for i in range(50)]
    new = [_tokens(t, string_result) for t in texts]
    monkeypatch.setattr(scan_module, "_longest", _longest_of_all)
    old = [_tokens(t, string_result) for t in texts]
    assert new == old
    assert sum(len(t) for t in new) > 10_000
    assert any(re.match("ExprError", str(t[0])) for t in new)  # (refusals compared too)
