"""An ``<If>`` section's configuration is built for the requests it is true for (issue 10).

Apache merges an ``<If>``/``<ElseIf>``/``<Else>`` section only into the requests whose
condition holds (``ap_if_walk``); the model keeps each one's node and parsed condition
(:class:`confmig.model.sections.IfSection`) and builds its section when a request first finds
it true, so an access file of thousands of ``<If>`` blocks costs little more than their nodes
and conditions when none holds (lint's SEC002 requests).  The answers are those of the
sections built up front: the errors of an ``<If>`` no request enters still make every request
of the directory answer 500.  The expression cache is bounded and a lint empties it.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from confmig.lint.engine import lint_paths
from confmig.load import load_path
from confmig.model import expr
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request
from confmig.model.walk import walk_file


def _site(root: Path, htaccess: str):
    (root / ".htaccess").write_text(htaccess)
    (root / "a.txt").write_text("a")
    return site_for(load_path(root))


def _ifs(site, root: Path) -> list:
    """The access file's <If> entries, in order."""
    _, sections, _ = walk_file(site, site.main, str(root / "a.txt"))
    (section,) = [s for s in sections if s.kind == "htaccess"]
    return list(section.core.ifs)


def _blocks(count: int) -> str:
    return "".join(f"<If \"%{{QUERY_STRING}} == 'q{i}'\">\nHeader set X-N {i}\n</If>\n"
                   for i in range(count))


def test_only_the_sections_a_request_finds_true_are_built(tmp_path: Path) -> None:
    site = _site(tmp_path, _blocks(200))
    answer = evaluate(site, Request.from_url("/a.txt?q7"), trace=False)
    assert answer.status == 200 and answer.headers["X-N"] == "7"
    assert evaluate(site, Request.from_url("/a.txt?none"), trace=False).headers.get("X-N") is None
    ifs = _ifs(site, tmp_path)
    assert len(ifs) == 200
    assert [i for i, entry in enumerate(ifs) if entry.built] == [7]
    # built once: later requests get the same section (merges are cached by identity)
    first = ifs[7].section()
    answer = evaluate(site, Request.from_url("/a.txt?q7"), trace=True)
    assert answer.headers["X-N"] == "7" and ifs[7].section() is first
    # what the walk reads is there without a build
    assert (ifs[3].kind, ifs[3].line) == ("if", 10)
    assert ifs[3].label == "<If \"%{QUERY_STRING} == 'q3'\">"
    assert ifs[3].where.endswith(".htaccess:10") and not ifs[3].built


def test_else_chains_and_nested_ifs_are_built_when_entered(tmp_path: Path) -> None:
    site = _site(tmp_path, "<If \"%{QUERY_STRING} == 'a'\">\nHeader set X-W a\n</If>\n"
                           "<ElseIf \"%{QUERY_STRING} == 'b'\">\nHeader set X-W b\n"
                           "<If \"%{REQUEST_METHOD} == 'GET'\">\nHeader set X-G get\n</If>\n"
                           "</ElseIf>\n<Else>\nHeader set X-W else\n</Else>\n")
    ifs = _ifs(site, tmp_path)
    assert [e.kind for e in ifs] == ["if", "elseif", "else"] and not any(e.built for e in ifs)
    answer = evaluate(site, Request.from_url("/a.txt?a"), trace=False)
    assert answer.headers["X-W"] == "a" and "X-G" not in answer.headers
    assert [e.built for e in ifs] == [True, False, False]
    answer = evaluate(site, Request.from_url("/a.txt?b"), trace=False)
    assert answer.headers["X-W"] == "b" and answer.headers["X-G"] == "get"
    (nested,) = ifs[1].core.ifs
    assert nested.built and [e.built for e in ifs] == [True, True, False]
    assert evaluate(site, Request.from_url("/a.txt?c"), trace=False).headers["X-W"] == "else"
    assert [e.directives[0].args[-1] for e in ifs] == ["a", "b", "else"]


def test_an_error_in_an_if_no_request_enters_is_still_a_500(tmp_path: Path) -> None:
    site = _site(tmp_path, "<If \"%{QUERY_STRING} == 'never'\">\nHeader bogus X-A b\n</If>\n")
    answer = evaluate(site, Request.from_url("/a.txt"), trace=True)
    assert answer.status == 500
    assert any("first argument must be" in step.message for step in answer.steps)


def _model_bytes(root: Path, count: int) -> int:
    """Traced bytes a site over *count* <If> blocks keeps after one request none is true for
    (the blocks' text and parse included: the site is built from the file here)."""
    (root / ".htaccess").write_text(_blocks(count))
    (root / "a.txt").write_text("a")
    gc.collect()
    tracemalloc.start()
    try:
        site = site_for(load_path(root))
        assert evaluate(site, Request.from_url("/a.txt?none"), trace=False).status == 200
        gc.collect()
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del site
    expr.forget_parsed()
    return size


def test_an_if_no_request_enters_costs_its_node_and_condition(tmp_path: Path) -> None:
    for name in ("warm", "small", "big"):
        (tmp_path / name).mkdir()
    _model_bytes(tmp_path / "warm", 300)  # (what the first model of a process loads)
    small = _model_bytes(tmp_path / "small", 500)
    big = _model_bytes(tmp_path / "big", 2500)
    per_if = (big - small) / 2000
    # ~1,780 bytes an <If> while every section was built up front (HEAD cc62615); ~1,030
    # now: its syntax nodes, the parsed condition, the IfSection, the expression cache's entry
    assert per_if < 1250, per_if


def test_a_lint_lets_go_of_the_expressions_it_parsed(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text(_blocks(3))
    before = expr.parse_cached("%{QUERY_STRING} == 'q1'", restricted=True)
    assert expr.parse_cached("%{QUERY_STRING} == 'q1'", restricted=True) is before
    lint_paths([tmp_path / ".htaccess"], use_cache=False)
    assert expr.parse_cached("%{QUERY_STRING} == 'q1'", restricted=True) is not before


def test_the_expression_cache_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(expr, "_MAX_PARSED", 4)
    expr.forget_parsed()
    texts = [f"%{{QUERY_STRING}} == 'b{i}'" for i in range(10)]
    parsed = [expr.parse_cached(t) for t in texts]
    assert sum(len(table) for table in expr._PARSED) == 4
    assert expr.parse_cached(texts[-1]) is parsed[-1]  # the newest kept
    assert expr.parse_cached(texts[0]) is not parsed[0]  # the oldest gone
    expr.forget_parsed()


def test_a_variable_node_is_shared() -> None:
    a = expr.Expr.parse("%{QUERY_STRING} == 'x'")
    b = expr.Expr.parse("%{query_string} =~ /y/", restricted=True)
    assert a.tree.left is b.tree.subject  # type: ignore[union-attr]
    assert a.tree.left.name == "QUERY_STRING"  # type: ignore[union-attr]
