"""The engine hands each rule the directives it declared (gixy-style), once per file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import confmig.lint.rule as rule_module
from confmig.lint.context import FileContext
from confmig.lint.dispatch import INTERNAL_CODE
from confmig.lint.engine import lint_text
from confmig.lint.finding import Finding
from confmig.lint.rule import ANY_SECTION, Rule
from confmig.syntax import Directive, Section

SEEN: list[tuple[str, str, tuple[str, ...]]] = []


class Spy(Rule):
    code = "ZZZ901"
    name = "spy"
    summary = "records what it is given"
    rationale = bad = good = "x"
    directives = frozenset({"header", "<files", "rewriterule"})
    kinds = frozenset({"htaccess"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        SEEN.append((self.code, node.name, tuple(p.name for p in parents)))
        return iter(())


class Sections(Spy):
    code = "ZZZ902"
    name = "sections"
    directives = frozenset({ANY_SECTION})


class Crash(Rule):
    code = "ZZZ903"
    name = "crash"
    summary = "raises on every directive"
    rationale = bad = good = "x"
    directives = frozenset({"header"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        raise RuntimeError("kaput")


@pytest.fixture
def spies() -> Iterator[None]:
    SEEN.clear()
    for cls in (Spy, Sections, Crash):
        rule_module._RULES[cls.code] = cls
    yield
    for cls in (Spy, Sections, Crash):
        del rule_module._RULES[cls.code]


TEXT = ('Header set X-A 1\n<Files "a.txt">\n  Header set X-B 2\n  Require all denied\n'
        "</Files>\nOptions -Indexes\n<IfModule mod_rewrite.c>\n  RewriteEngine On\n"
        "  RewriteRule ^a$ /b [L]\n</IfModule>\n")


def test_each_rule_gets_only_what_it_declared(spies: None) -> None:
    found = lint_text(TEXT)
    assert sorted(s for s in SEEN if s[0] == "ZZZ901") == [
        ("ZZZ901", "Files", ()), ("ZZZ901", "Header", ()), ("ZZZ901", "Header", ("Files",)),
        ("ZZZ901", "RewriteRule", ())]       # <IfModule> is resolved before the rules run
    assert [s[1] for s in SEEN if s[0] == "ZZZ902"] == ["Files"]
    crashes = [f for f in found if f.code == INTERNAL_CODE]
    assert len(crashes) == 1 and "ZZZ903 (crash)" in crashes[0].message  # once per file


def test_kinds_and_unread_files_are_not_dispatched(spies: None) -> None:
    lint_text(TEXT, kind="server", filename="httpd.conf")
    assert not [s for s in SEEN if s[0] == "ZZZ901"]   # htaccess only
    SEEN.clear()
    lint_text(TEXT, allow_override=["None"])          # Apache never opens the file
    assert SEEN == []
