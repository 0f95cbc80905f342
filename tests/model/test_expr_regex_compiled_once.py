"""An ``ap_expr`` regex (``=~``/``!~``) is compiled once when the expression is parsed, as
Apache compiles it (issue 10: a 1 MB file of ``<If "%{QUERY_STRING} =~ /qN/">`` blocks
compiled each pattern a second time, as the Python binding compiles it, only to count its
groups - and that compile refused ``\\C``, which Apache accepts)."""

from __future__ import annotations

import itertools

import pcre2
import pytest

from confmig.model.expr import Expr, ExprError
from confmig.model.expr.nodes import Match

_FRESH = itertools.count()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    seen: list[bytes] = []
    real = pcre2.compile

    def compile_(pattern: object, *args: object, **kwargs: object) -> object:
        seen.append(pattern)  # type: ignore[arg-type]
        return real(pattern, *args, **kwargs)

    monkeypatch.setattr(pcre2, "compile", compile_)
    return seen


@pytest.mark.parametrize("op", ["=~", "!~"])
def test_a_regex_is_compiled_once_when_parsed(monkeypatch: pytest.MonkeyPatch,
                                              op: str) -> None:
    seen = _counting(monkeypatch)
    n = next(_FRESH)
    tree = Expr.parse(f"%{{QUERY_STRING}} {op} /once{n}-(a|b)x/").tree
    assert isinstance(tree, Match) and tree.negate == (op == "!~")
    assert len(seen) == 1, seen


@pytest.mark.parametrize(("pattern", "groups"), [
    ("q1", 0), ("(q)1", 1), ("(?:q)1", 0), ("(?<n>q)", 1), (r"\Q(\E", 0), (r"(a)\x{41}", 1),
    ("(a)(b)(c)(d)(e)(f)(g)(h)(i)", 9), ("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", 9),
])
def test_groups_counted_from_the_compile(pattern: str, groups: int) -> None:
    # (only "any group" is read: a match with groups sets $0-$9; at most 9 are counted)
    tree = Expr.parse(f"%{{QUERY_STRING}} =~ /{pattern}/").tree
    assert isinstance(tree, Match) and tree.groups == groups


@pytest.mark.parametrize("pattern", ["(", "a{2,1}", "[z-a]", "(?<n>a)(?<n>b)"])
def test_a_pattern_apache_refuses_is_refused_when_parsed(pattern: str) -> None:
    with pytest.raises(ExprError, match="Failed to compile regular expression"):
        Expr.parse(f"%{{QUERY_STRING}} =~ /{pattern}/")


@pytest.mark.apache
def test_backslash_c_as_apache() -> None:
    """Apache's PCRE2 takes ``\\C`` (one code unit); the binding's own compile refused it
    (NEVER_BACKSLASH_C) and the model answered 500."""
    from confmig.lint.testing import ApacheCases, HtaccessCase
    from confmig.load import load_config
    from confmig.model.evaluate import evaluate
    from confmig.model.request import Request, RequestHeaders
    from confmig.model.site_builder import build_site

    lines = [r'<If "%{REQUEST_URI} =~ /\C/">', r'<If "%{REQUEST_URI} =~ /x\Cy/">',
             r'<If "%{REQUEST_URI} =~ /(/">']
    cases = [HtaccessCase(f"c{i}", line + "\nRequire all denied\n</If>\n")
             for i, line in enumerate(lines)]
    with ApacheCases(cases) as apache:
        real = [apache.status(f"c{i}") for i in range(len(lines))]
        site = build_site(load_config(apache.conf_path))
        host = RequestHeaders([("Host", "127.0.0.1")])
        model = [evaluate(site, Request(f"/c{i}/index.html", "GET", host)).status
                 for i in range(len(lines))]
    assert real == [403, 200, 500]
    assert model == real
