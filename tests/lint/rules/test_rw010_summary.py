"""RW010's summary of an access file (kept for the tree rules until they ran): its rules are
one ``(path, number of rules)`` token, not the token repeated once per rule (issue 10: a list
of 20,044 references for a 1 MB file of rules, 0.16 MB, alive through SEC002), and the
finding still counts every rule of each file whose rules are dropped."""

from __future__ import annotations

from pathlib import Path

from confmig.lint.engine import lint_paths
from confmig.lint.rules.rw.rw010_rules_not_inherited import RewriteRulesNotInherited
from tests.lint.test_lint_scopes import file_context


def test_the_summary_holds_one_token_for_all_the_rules() -> None:
    n = 500
    ctx = file_context("RewriteEngine On\n" + "".join(
        f"RewriteRule ^p{i}/(.*)$ /x{i}.php?q=$1 [L]\n" for i in range(n)))
    summary = RewriteRulesNotInherited().summarize(ctx)
    assert summary is not None
    assert summary.config.rules == [("/site/.htaccess", n)]
    engine_only = RewriteRulesNotInherited().summarize(file_context("RewriteEngine On\n"))
    assert engine_only is not None and engine_only.config.rules == []


def test_the_finding_counts_the_rules_of_each_file(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text(
        "RewriteEngine On\nRewriteRule ^a$ /b\nRewriteRule ^c$ /d\nRewriteRule ^e$ /f\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".htaccess").write_text(
        "RewriteOptions Inherit\nRewriteRule ^g$ /h\n")
    (tmp_path / "sub" / "deeper").mkdir()
    (tmp_path / "sub" / "deeper" / ".htaccess").write_text(
        "RewriteEngine On\nRewriteOptions AllowNoSlash\n")  # (its own options: no Inherit)
    result = lint_paths([tmp_path], use_cache=False)
    messages = [f.message for f in result.findings if f.code == "RW010"]
    top, sub = tmp_path / ".htaccess", tmp_path / "sub" / ".htaccess"
    assert messages == [f"this .htaccess has mod_rewrite directives, so the 1 RewriteRule(s) "
                        f"of {sub} and 3 RewriteRule(s) of {top} no longer apply in this "
                        "directory and below"]
