"""A whole-file hook is not called for a file without the directives it names
(``Rule.file_directives``): skipping it must never hide a finding.  Checked by linting every
rule's examples and the shared corpus with and without the skipping."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import confmig.lint.dispatch as dispatch
from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths, lint_text
from confmig.lint.finding import Finding
from confmig.lint.rule import all_rules
from tests.corpus import CORPUS, needs_corpus

RULES = all_rules()
SKIPPING = [r for r in RULES if r.file_directives]


def test_the_rules_that_skip_files_name_real_directives() -> None:
    assert {"RW001", "PERF003", "DEP001", "CTX010", "SEC010"} <= {r.code for r in SKIPPING}
    for rule in SKIPPING:
        for name in rule.file_directives:
            assert name == name.lower() and name.rstrip("*").isalpha(), (rule.code, name)


def _examples() -> Iterator[tuple[str, str, dict[str, object]]]:
    for rule in RULES:
        for text in (rule.bad, rule.good):
            yield rule.code, text, {
                "kind": rule.example_kind,
                "filename": ".htaccess" if rule.example_kind == "htaccess" else "httpd.conf",
                "allow_override": rule.example_allow_override,
                "allow_override_list": rule.example_allow_override_list,
                "modules": rule.example_modules, "files": dict(rule.example_files)}


def _key(findings: list[Finding]) -> list[tuple[object, ...]]:
    # (lint_text writes each text in a temporary directory of its own, which messages name)
    return [(f.code, f.file, f.line, f.column, re.sub(r"confmig-lint-\w+", "<tmp>", f.message))
            for f in findings]


def _without_skipping(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatch, "_wanted", lambda names, exact, prefixes: True)


def test_skipping_hides_no_finding_in_the_rule_examples(
        monkeypatch: pytest.MonkeyPatch) -> None:
    examples = list(_examples())
    skipped = [_key(lint_text(text, **opts)) for _, text, opts in examples]  # type: ignore[arg-type]
    _without_skipping(monkeypatch)
    every = [_key(lint_text(text, **opts)) for _, text, opts in examples]  # type: ignore[arg-type]
    assert skipped == every
    # and the examples do reach the hooks that skip: each such rule's bad example fires
    fired = {f[0] for found in skipped for f in found}
    assert {r.code for r in SKIPPING} <= fired


@needs_corpus
def test_skipping_hides_no_finding_in_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(cache=False)
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv")
    skipped = [_key(lint_paths([CORPUS], settings=settings).findings)]
    skipped += [_key(lint_paths([p], settings=settings).findings) for p in files]
    _without_skipping(monkeypatch)
    every = [_key(lint_paths([CORPUS], settings=settings).findings)]
    every += [_key(lint_paths([p], settings=settings).findings) for p in files]
    assert skipped == every


def test_a_hook_is_called_only_for_files_with_its_directives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[str] = []
    rule = next(r for r in RULES if r.code == "DEP001")
    real = rule.check_file

    def spy(self, ctx):  # type: ignore[no-untyped-def]
        called.append(Path(ctx.path).name)
        return real(self, ctx)

    monkeypatch.setattr(rule, "check_file", spy)
    assert not lint_text("Options -Indexes\nRequire all granted\n")
    assert called == []
    assert [f.code for f in lint_text("Order allow,deny\nAllow from all\n")] == ["DEP001"]
    assert called == [".htaccess"]
