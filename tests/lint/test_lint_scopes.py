"""The lint's scopes (:mod:`confmig.lint.scopes`) kept as one index over a file's directives
(issue 10): they group directives exactly as a dictionary of sections did, the scopes that
hold mod_rewrite directives are the same objects however they are reached, and a scope costs
a few bytes until it is read."""

from __future__ import annotations

import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.lint.context import FileContext, make_environment, make_overrides
from confmig.lint.engine import htaccess_context, lint_text
from confmig.lint.rules.dup.dup002_duplicate_directive import DuplicateDirective
from confmig.lint.scopes import SCOPE_SECTIONS, Scopes, build_scopes, walk_directives
from confmig.load import load_htaccess
from confmig.syntax import Directive, Section, parse_text

# Sections with a configuration of their own, and some without (their directives belong to
# the section around them).
_OPENERS = ["Directory /a", "Files a", "FilesMatch b", "Location /c", "If \"true\"",
            "VirtualHost *:80", "Limit GET", "IfModule mod_x.c", "LimitExcept POST"]
_DIRECTIVES = ["Header set A b", "RewriteRule ^a b", "Options -Indexes", "RewriteEngine On"]


def _block(children: list[str], opener: str) -> str:
    name = opener.split()[0]
    return f"<{opener}>\n{''.join(children)}</{name}>\n"


_TEXT = st.recursive(
    st.sampled_from(_DIRECTIVES).map(lambda d: d + "\n"),
    lambda inner: st.builds(_block, st.lists(inner, max_size=5), st.sampled_from(_OPENERS)),
    max_leaves=40)


def file_context(text: str) -> FileContext:
    """The context of an access file ``/site/.htaccess`` holding ``text``."""
    env = make_environment(None, set())
    data = text.encode()
    loaded = load_htaccess("/site/.htaccess", env.state, data=data)
    return htaccess_context(env, "/site/.htaccess", "/site", make_overrides(("All",)),
                            loaded, data)


def dup002_peak_per_line(text: str, lines: int) -> tuple[float, list[tuple[int, str]]]:
    """DUP002's traced peak over the top-level scope of ``text``, in bytes a line, and its
    findings (line, message)."""
    ctx = file_context(text)
    scope = next(iter(ctx.scopes()))
    for d in scope.directives:
        _ = d.args  # (read first, as the other rules do)
    rule = DuplicateDirective()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        findings = [(f.line, f.message) for f in rule._check_scope(scope)]
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return peak / lines, findings


def _reference(pairs: list[tuple[Directive, tuple[Section, ...]]]
               ) -> list[tuple[Section | None, tuple[Section, ...], list[Directive]]]:
    """The grouping as it was written before the index: a dictionary keyed by the innermost
    scope section, in order of first appearance."""
    found: dict[int, tuple[Section | None, tuple[Section, ...], list[Directive]]] = {}
    for directive, parents in pairs:
        inner = next((p for p in reversed(parents) if p.lname in SCOPE_SECTIONS), None)
        if id(inner) not in found:
            upto = parents.index(inner) + 1 if inner is not None else 0
            found[id(inner)] = (inner, parents[:upto], [])
        found[id(inner)][2].append(directive)
    return list(found.values())


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=6))
def test_scopes_group_directives_as_a_dictionary_of_sections_did(parts: list[str]) -> None:
    config = parse_text("".join(parts), "httpd.conf")
    pairs = list(walk_directives(config.nodes))
    scopes = build_scopes(pairs, htaccess=False)
    expected = _reference(pairs)
    assert len(scopes) == len(expected)
    for scope, (section, enclosing, directives) in zip(scopes, expected, strict=True):
        assert scope.section is section
        assert scope.enclosing == enclosing
        assert all(a is b for a, b in zip(scope.enclosing, enclosing, strict=True))
        assert len(scope.directives) == len(directives)
        assert all(a is b for a, b in zip(scope.directives, directives, strict=True))
    assert [s.section for s in scopes[1:3]] == [e[0] for e in expected[1:3]]
    if expected:
        assert scopes[-1].section is expected[-1][0]


def test_a_section_met_again_after_a_nested_one_is_one_scope() -> None:
    text = ("Header set A 1\n<Directory /a>\nHeader set B 1\n<Files x>\nHeader set C 1\n"
            "</Files>\nHeader set B 2\n<IfModule m>\nHeader set B 3\n</IfModule>\n"
            "</Directory>\nHeader set A 2\n")
    scopes = build_scopes(walk_directives(parse_text(text, "httpd.conf").nodes), False)
    assert [(s.label, [d.raw.strip() for d in s.directives]) for s in scopes] == [
        ("the server config", ["Header set A 1", "Header set A 2"]),
        ("<Directory /a>", ["Header set B 1", "Header set B 2", "Header set B 3"]),
        ("<Files x>", ["Header set C 1"]),
    ]


def test_rewrite_scopes_are_the_same_objects_from_scopes() -> None:
    """A scope's parsed rules are worked out once for every rule that reads them."""
    ctx = file_context("RewriteEngine On\n<Files a>\nHeader set A b\n</Files>\n"
                       "<Files b>\nRewriteRule ^x y\n</Files>\n")
    rewrite = ctx.rewrite_scopes()
    assert [s.label for s in rewrite] == ["this .htaccess", "<Files b>"]
    every = list(ctx.scopes())
    assert every[0] is rewrite[0] and every[2] is rewrite[1]
    assert rewrite[1].rewrite is ctx.scopes()[2].rewrite
    assert [d.raw.strip() for d in every[1].directives] == ["Header set A b"]


def test_a_scope_costs_a_few_bytes_until_it_is_read() -> None:
    """A ``Scope`` and its list per section, kept for the whole lint, held ~215 bytes each
    (5.9 MB for a 1 MB file of ``<Files>`` blocks): the index holds ~13."""
    blocks = 5000
    ctx = file_context("<Files a>\nHeader set A b\n</Files>\n" * blocks)
    assert len(ctx.directive_nodes()) == blocks
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        scopes = ctx.scopes()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert isinstance(scopes, Scopes) and len(scopes) == blocks
    assert held < 24 * blocks, f"{held / blocks:.0f} bytes a scope"


def test_duplicates_are_still_found_per_section() -> None:
    text = ("<Files a>\nHeader set A 1\n</Files>\n<Files b>\nHeader set A 1\n"
            "<IfModule mod_headers.c>\nHeader set A 2\n</IfModule>\n</Files>\n")
    found = [(f.line, f.message) for f in lint_text(text) if f.code == "DUP002"]
    assert found == [(5, "Header set A 1 is overridden by line 7 (Header set A 2) in "
                         "<Files b>: only the later one applies")]


# -- DUP002 over a scope: hashes first, then only the keys met more than once ---------------

_LINES = ["Header set A 1", "Header set a 2", "Header always set A 1", "Header unset A",
          "Header set B 1 env=x", "Options -Indexes", "Options +Indexes", "Options None",
          "DirectoryIndex a.html", "DirectoryIndex b.html", "ErrorDocument 404 /x",
          "ErrorDocument 404 /y", "RewriteRule a b", "AddType text/x .x", "ExpiresActive On"]


def _dup002_before(ctx: FileContext) -> list[tuple[int, str]]:
    """DUP002's findings as the rule found them with every key in its maps (the loop before
    the hashes were counted first), as (line, message)."""
    from confmig.lint.rules.dup.dup002_duplicate_directive import (
        REPEATABLE,
        _exact,
        _key,
        _Seen,
    )

    out = []
    for scope in ctx.scopes():
        seen_exact, seen_key, indexes = _Seen(_exact), _Seen(_key), []
        for d in scope.directives:
            if d.lname in REPEATABLE:
                continue
            first = seen_exact.first(_exact(d), d)
            if first is not None:
                out.append((d.line, f"{d.name} {' '.join(d.args)} repeats line {first.line}: "
                                    "the repetition changes nothing"))
                continue
            if d.lname == "directoryindex":
                indexes.append(d)
            key = _key(d)
            earlier = seen_key.last(key, d) if key is not None else None
            if earlier is not None:
                out.append((earlier.line, f"{earlier.name} {' '.join(earlier.args)} is "
                                          f"overridden by line {d.line} ({d.name} "
                                          f"{' '.join(d.args)}) in {scope.label}: only the "
                                          "later one applies"))
        if len(indexes) > 1:
            names = " ".join(a for d in indexes for a in d.args)
            out.append((indexes[-1].line, f"{len(indexes)} DirectoryIndex lines in "
                                          f"{scope.label} add up: Apache looks for {names}, "
                                          "in that order"))
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_LINES), st.integers(0, 2)), max_size=60))
def test_dup002_finds_what_it_found_with_every_key_kept(lines: list[tuple[str, int]]) -> None:
    """Lines of three ``<Files>`` sections and the top level, many of them equal or
    replacing each other: the same findings, in the same order."""
    parts = []
    for line, where in lines:
        parts.append(f"<Files f{where}>\n{line}\n</Files>\n" if where else f"{line}\n")
    ctx = file_context("".join(parts))
    rule = DuplicateDirective()
    found = [(f.line, f.message) for f in rule.check_file(ctx)]
    assert found == _dup002_before(ctx)


def test_dup002_holds_a_few_bytes_a_directive() -> None:
    """Its two maps held an int and a dictionary slot per directive (~117 bytes a line of a
    file of distinct lines): now 8 bytes and a few slots of a table of counts."""
    lines = 20_000
    per_line, findings = dup002_peak_per_line(
        "".join(f"Header set X-{i} b\n" for i in range(lines)), lines)
    assert findings == []
    assert per_line < 40, f"{per_line:.0f} bytes a directive"
