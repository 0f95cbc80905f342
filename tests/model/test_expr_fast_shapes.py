"""The commonest ``ap_expr`` conditions (``%{VAR} =~ /re/``, ``%{VAR} == 'x'``, ``-f %{VAR}``)
are built without Lark (issue 10: Lark's LALR parse was the largest part of a lint of a 1 MB
file of ``<If>`` blocks), from the tokens read in one pass (``common_tokens``) or scanned.
The tree - or the refusal, with its message - is the one Lark gives, compared on generated
conditions of those shapes and near them, the test suite's expressions and random token
soups, in every context (restricted, mod_ssl loaded)."""

from __future__ import annotations

import itertools
import random

import pytest

from confmig.model.expr import names
from confmig.model.expr import parse as parse_module
from confmig.model.expr.parse import parse_condition
from tests.differential.sites_expr import EXPRESSIONS

_VARS = ["QUERY_STRING", "query_string", "Request_Uri", "REQUEST_FILENAME", "HTTP_HOST",
         "BOGUS", "SSL_PROTOCOL", "ssl_cipher", "TIME", "REMOTE_ADDR", "x", "HTTP2"]
_OPS = ["==", "=", "!=", "<", "<=", ">", ">=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge",
        "eq", "ne", "lt", "le", "gt", "ge", "=~", "!~", "-in", "in", "-ipmatch", "-strmatch",
        "-fnmatch", "-bogus", "and", "&&", "."]
_RIGHTS = ["'x'", '"y z"', "''", "'a\\'b'", "'\\101'", "'%{QUERY_STRING}'", "'$1'", "'x",
           "/q1/", "/q(1)/i", "m#a#", "m#a#i", "/(/", "/\\C/", "/a{2,1}/", "/x", "/\\u00/",
           "10", "-1", "%{QUERY_STRING}", "{'a'}", "true", "'10.0.0.0/8'", "x"]
_UNARY = ["-f", "-d", "-e", "-s", "-L", "-h", "-x", "-F", "-U", "-A", "-n", "-z", "-T", "-R",
          "-Q", "-ff", "!", "-"]


def _generated() -> list[str]:
    out = [f"%{{{v}}} {op} {r}" for v, op, r in itertools.product(_VARS, _OPS, _RIGHTS)]
    out += [f"{u} %{{{v}}}" for u, v in itertools.product(_UNARY, _VARS)]
    out += [f"{u} {r}" for u, r in itertools.product(_UNARY, _RIGHTS)]
    out += [f"%{{{v}}}=~/q{i}/" for i, v in enumerate(sorted(names.VARIABLES))]
    out += [f"%{{{v}}} {op} 'v{i}'" for i, (v, op) in enumerate(
        itertools.product(sorted(names.VARIABLES), ("==", "!=", "-eq", "<")))]
    out += [f"%{{{v}}} =~ /q{i}/ && true" for i, v in enumerate(_VARS)]
    out += [f"!%{{{v}}} =~ /q/" for v in _VARS] + [f"(%{{{v}}} == 'x')" for v in _VARS]
    out += ["%{QUERY_STRING} =~ /q/ x", "%{QUERY_STRING} == 'x' 'y'", "-f %{X} %{Y}",
            "%{QUERY_STRING =~ /q/", "%{tolower:%{QUERY_STRING}} == 'x'", "%{QUERY_STRING}",
            "", " ", "%{QUERY_STRING} =~ /(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)/",
            "%{QUERY_STRING} !~ m#^/a#i", "%{HTTP:X-A} == 'b'", "-f %{HTTP:X}",
            "%{QUERY_STRING} == 'a\nb'", "%{QUERY_STRING}\t==\n'x'"]
    rng = random.Random(3)
    parts = ["%{QUERY_STRING}", "%{BOGUS}", "=~", "==", "-f", "/q/", "'x'", "(", ")", "&&",
             "||", "!", "true", "-R", "'1.2.3.4'", "%{", "}", "'", "/", "m#", "-eq", "1"]
    out += [" ".join(rng.choice(parts) for _ in range(rng.randint(1, 7))) for _ in range(3000)]
    return out + [e for _, e, _, _ in EXPRESSIONS]


def _outcome(text: str, restricted: bool, ssl_loaded: bool) -> tuple[str, ...]:
    try:
        tree = parse_condition(text, restricted=restricted, ssl_loaded=ssl_loaded)
    except Exception as exc:  # (the refusal is compared)
        return ("refused", type(exc).__name__, str(exc))
    return ("tree", repr(tree))


@pytest.mark.parametrize(("restricted", "ssl_loaded"),
                         list(itertools.product((False, True), repeat=2)))
def test_same_tree_as_lark(monkeypatch: pytest.MonkeyPatch, restricted: bool,
                           ssl_loaded: bool) -> None:
    texts = _generated()
    fast = [_outcome(t, restricted, ssl_loaded) for t in texts]
    built = {"n": 0}
    real = parse_module._fast

    def counting(toks, b):  # type: ignore[no-untyped-def]
        tree = real(toks, b)
        built["n"] += tree is not None
        return tree

    read = {"n": 0}
    real_common = parse_module.common_tokens

    def counting_common(text):  # type: ignore[no-untyped-def]
        tokens = real_common(text)
        read["n"] += tokens is not None
        return tokens

    monkeypatch.setattr(parse_module, "_fast", counting)
    monkeypatch.setattr(parse_module, "common_tokens", counting_common)
    assert [_outcome(t, restricted, ssl_loaded) for t in texts] == fast
    # the scanner's tokens (not the one pass of common_tokens) for _fast
    monkeypatch.setattr(parse_module, "common_tokens", lambda _text: None)
    assert [_outcome(t, restricted, ssl_loaded) for t in texts] == fast
    monkeypatch.setattr(parse_module, "_FAST_LONGEST", -1)  # Lark for every condition
    lark = [_outcome(t, restricted, ssl_loaded) for t in texts]
    differ = [(t, a, b) for t, a, b in zip(texts, fast, lark, strict=True) if a != b]
    assert differ == []
    assert built["n"] > 1000  # (the fast shapes were met)
    assert read["n"] > 1000  # (read in one pass)
    assert sum(o[0] == "refused" for o in fast) > 1000


def test_the_if_shape_is_not_given_to_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_lark(*_args: object) -> object:
        raise AssertionError("Lark asked")

    monkeypatch.setattr(parse_module, "_parser", no_lark)
    for text in ("%{QUERY_STRING} =~ /q17036/", "%{REQUEST_URI} !~ m#^/a#i",
                 "%{HTTP_HOST} == 'example.org'", "-f %{REQUEST_FILENAME}"):
        parse_condition(text)
    with pytest.raises(AssertionError):
        parse_condition("%{QUERY_STRING} =~ /a/ || true")
