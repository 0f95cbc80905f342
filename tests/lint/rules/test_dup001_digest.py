"""DUP001's summary of an access file (issue 10): digests of its block's normalised lines,
not the lines' strings - the same groups as comparing the lines themselves."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest

from confmig.lint.rules.dup.blocks import block_digest, block_key
from confmig.lint.rules.dup.dup001_repeated_rewrite_block import RepeatedRewriteBlock
from confmig.lint.scopes import Scope
from tests.lint.test_lint_scopes import file_context


def _top(text: str) -> Scope:
    ctx = file_context(text)
    return next(s for s in ctx.rewrite_scopes() if s.section is None)


def _summary_bytes(target: str, n: int = 2_000) -> float:
    """Bytes a line kept by DUP001's summary of 2 * n distinct RewriteCond/RewriteRule lines."""
    text = "".join(f"RewriteCond %{{HTTP_HOST}} ^h{i}$\n"
                   f"RewriteRule ^p{i}/(.*)$ {target.format(i=i)} [L,QSA]\n" for i in range(n))
    ctx = file_context(text)
    top = next(s for s in ctx.rewrite_scopes() if s.section is None)
    _ = top.rewrite.rules
    tracemalloc.start()
    summary = RepeatedRewriteBlock().summarize(ctx)
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert summary is not None
    return kept / (2 * n)


@pytest.mark.parametrize("target", ["/x{i}.php?q=$1", "x{i}.php", "-"])
def test_the_summary_keeps_no_string_a_line(target: str) -> None:
    """The summary of 4,000 distinct rewrite lines: a few hundred bytes in all where it was
    ~25 bytes a line (a tuple of pointers to the rules' strings, which kept them alive)."""
    kept = _summary_bytes(target)
    assert kept < 1, f"{kept:.1f} bytes a line"


def test_targets_that_may_start_with_the_url_prefix_keep_their_fields() -> None:
    """A RewriteRule whose target may begin with the directory's URL (known only at tree
    time) keeps its three fields and its place; its condition keeps a digest: ~22 bytes a
    line while the rules held their pattern and substitution strings, which the summary
    pointed to.  A rule reads them from its directive's words since it no longer holds them
    (tests/model/test_rewrite_rule_memory.py), so the summary's fields are strings of their
    own: ~84 bytes a line, what the rules held before (and the summary kept alive)."""
    kept = _summary_bytes("/site/x{i}.php")
    assert kept < 90, f"{kept:.1f} bytes a line"


BLOCKS = [
    "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^ index.php [L]\n",
    "RewriteRule ^ /a/index.php [L]\n",
    "RewriteRule ^ /b/index.php [L]\n",
    "RewriteRule ^ /a/b/index.php [L]\n",
    "RewriteRule ^ /index.php [L]\n",
    "RewriteRule ^ {base}/index.php [L]\n",
    "RewriteCond %{HTTP_HOST} ^a$\nRewriteRule ^ /a/index.php [L]\nRewriteRule ^x /a/x [F]\n",
    "RewriteCond %{HTTP_HOST} ^a$\nRewriteRule ^ /b/index.php [L]\nRewriteRule ^x /a/x [F]\n",
    "RewriteCond %{HTTP_HOST} ^a$\nRewriteRule ^ /b/index.php [L]\nRewriteRule ^x /b/x [F]\n",
    "RewriteBase /a/\nRewriteRule ^ /a/index.php [L]\n",
    "RewriteBase /b\nRewriteRule ^ /b/index.php [L]\n",
    "RewriteBase /\nRewriteRule ^ /index.php [L]\n",
    "RewriteRule   ^   /a/index.php   [L]\n",
    "RewriteRule \"^ a\" \"/a/q r\"\n",
    "RewriteRule ^ /a/q r\n",
]
PREFIXES = [None, "/", "/a/", "/b/", "/a/b/", "/c/"]


def test_equal_digests_are_equal_lines() -> None:
    """Over blocks with and without RewriteBase, with targets under one URL prefix or
    another, two blocks have equal digests exactly when their normalised lines are equal."""
    tops = [_top(text) for text in BLOCKS]
    cases = [(top, prefix) for top in tops for prefix in PREFIXES]
    for (a, pa), (b, pb) in itertools.combinations(cases, 2):
        da, db = block_digest(a), block_digest(b)
        assert da is not None and db is not None
        same = block_key(a, pa) == block_key(b, pb)
        assert (da.key(pa) == db.key(pb)) is same, (a.directives, pa, b.directives, pb)


def test_no_rule_or_a_line_that_does_not_split_is_no_block() -> None:
    assert block_digest(_top("RewriteEngine On\nRewriteCond %{HTTP_HOST} ^a$\n")) is None
    assert block_digest(_top("RewriteRule ^a /b [L]\nRewriteRule ^a\n")) is None
