"""DUP001's block lines (issue 10): a line the scope's mod_rewrite parse kept is read from the
parsed rule or condition, any other line split again; the lines are the same either way."""

from __future__ import annotations

import tracemalloc

from confmig.lint.rules.dup.blocks import FIELDS, block_lines, line_fields
from confmig.model.rewrite.parse import directive_arg_line
from tests.lint.test_lint_scopes import file_context

MIXED = (
    "RewriteEngine On\n"
    "RewriteCond %{HTTP_HOST} !^www\\. [NC,OR]\n"
    "RewriteCond %{HTTP:X} \"a b\"\n"
    "RewriteRule ^(.*)$ /x?  [L]\n"
    "RewriteRule !^n$ /y?q=1 [QSA]\n"
    "RewriteRule '^a b$' \"/q r\"\n"
    "RewriteCond %{REQUEST_FILENAME} !-f\n"
    "RewriteRule ^(bad$ /z [L]\n"          # does not compile: its condition is dropped too
    "RewriteRule ^ok$ /ok [BOGUS]\n"        # a flag Apache refuses
    "RewriteRule ^c$ - [F]\n"
    "RewriteCond %{QUERY_STRING} ^$\n"       # no rule follows
)


def _split_again(text: str) -> list[str]:
    ctx = file_context(text)
    top = next(s for s in ctx.rewrite_scopes() if s.section is None)
    out: list[str] = []
    for d in top.directives:
        if d.lname in ("rewritecond", "rewriterule"):
            first, second, flags = directive_arg_line(d) or ("", "", None)
            out += (d.lname, first, second, flags or "")
    return out


def test_the_lines_are_what_splitting_each_line_gives() -> None:
    ctx = file_context(MIXED)
    top = next(s for s in ctx.rewrite_scopes() if s.section is None)
    found = block_lines(top)
    assert found is not None
    assert [f for line in line_fields(found[1]) for f in line] == _split_again(MIXED)
    assert len(found[1]) == 1 + 10 * FIELDS


def _block_of_distinct_lines(n: int) -> tuple[list, tuple, int]:
    """The parsed rules of a file of ``n`` distinct condition + rule pairs, its top block as
    ``block_lines`` gives it, and the bytes that call kept."""
    text = "".join(f"RewriteCond %{{HTTP_HOST}} ^h{i}$\nRewriteRule ^p{i}/(.*)$ /x{i}.php [L]\n"
                   for i in range(n))
    ctx = file_context(text)
    top = next(s for s in ctx.rewrite_scopes() if s.section is None)
    rules = top.rewrite.rules
    tracemalloc.start()
    found = block_lines(top)
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert found is not None
    return rules, found, kept


def test_the_lines_of_parsed_rules_are_the_rules_fields() -> None:
    """A file of distinct rules whose words no rule read: the block's fields are the parsed
    rules' and conditions' fields as written."""
    rules, found, _ = _block_of_distinct_lines(200)
    lines = found[1]
    assert lines[1 + FIELDS] == rules[0].raw_pattern
    assert lines[2 + FIELDS] == rules[0].raw_substitution
    assert lines[1] == rules[0].conditions[0].test
    assert lines[2] == rules[0].conditions[0].raw_pattern


def test_the_block_keeps_three_fields_a_line() -> None:
    """The block of 4,000 distinct rewrite lines keeps the lines' kinds as one string and
    three fields a line: ~25 bytes a line while the rules held their pattern and
    substitution strings (the directive's name as a fourth field a line made it ~33).  A rule
    reads them from its directive's words since it no longer holds them (issue 10), so a
    rule's two fields are strings the block makes: ~84 bytes a line, the block held only
    while DUP001 digests it or compares a server config's sections.  A condition reads its
    test and pattern from its directive's words too since it no longer holds them
    (tests/model/test_rewrite_cond_memory.py): ~143 bytes a line."""
    n = 2_000
    _, found, kept = _block_of_distinct_lines(n)
    assert [lname for lname, *_ in line_fields(found[1])] == ["rewritecond", "rewriterule"] * n
    assert kept < 150 * 2 * n, f"{kept / (2 * n):.1f} bytes a line"
