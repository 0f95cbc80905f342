"""A parsed RewriteRule's memory (issue 10: a 1 MB file of 20,000 rules): the flags in one
object shared by the rules whose flags are the same, the pattern and substitution read from
the directive's words, and compile facts in one shared tuple; RW005 does not compile every
pattern of a file a second time."""

from __future__ import annotations

import tracemalloc

import pcre2
import pytest

from confmig.lint.testing import finds
from confmig.model.rewrite import RewriteConfig
from confmig.model.rewrite import regex as regex_module
from confmig.model.rewrite.parse import parse_arg_line
from confmig.model.rewrite.regex import Regex
from confmig.model.rewrite.rules import RewriteRule
from confmig.syntax import parse_text


def rules_of(text: str, context: str = "directory") -> RewriteConfig:
    parsed = parse_text(text, "t.conf")
    assert parsed.ok, parsed.errors
    return RewriteConfig.from_directives(list(parsed.directives()), context,  # type: ignore[arg-type]
                                         "/www/")


def test_rules_with_the_same_flags_share_them_and_setting_one_copies_it() -> None:
    one, two, three = rules_of("RewriteRule ^a$ /x [L,QSA]\nRewriteRule ^b$ /y [L,QSA]\n"
                               "RewriteRule !^c$ /z [L,QSA]\n").rules
    assert one.flags is two.flags and one.last and one.qsappend
    assert three.flags is not one.flags and three.negate and not one.negate
    one.last = False
    assert not one.last and two.last and one.flags is not two.flags
    two.env = ["A:1"]
    assert list(two.env) == ["A:1"] and not three.env and not one.env


@pytest.mark.parametrize(("line", "substitution", "qsnone", "qslast"), [
    ("RewriteRule ^a$ /x? [L]", "/x", True, False),
    ("RewriteRule ^a$ /x? [L,QSA]", "/x?", False, True),
    ("RewriteRule ^a$ /x?y [QSD]", "/x?y", False, False),
    ("RewriteRule ^a$ /x [QSD]", "/x", True, False),
    ("RewriteRule ^a$ /x", "/x", False, False),
])
def test_the_substitution_as_written_and_as_applied(line: str, substitution: str,
                                                    qsnone: bool, qslast: bool) -> None:
    [rule] = rules_of(line + "\n").rules
    assert rule.substitution == substitution
    assert (rule.qsnone, rule.qslast) == (qsnone, qslast)
    assert rule.raw_substitution == line.split()[2]
    assert str(rule) == line and rule.pattern == "^a$"


def test_a_parsed_rule_costs_less_than_its_own_fields() -> None:
    """Per rule of a file of distinct rules, what the parse keeps besides the directives and
    their words: the rule (184 bytes, then 80 and a 56-byte Regex (72 before), now 96 as its
    own Regex), its place in the lists: 296 bytes measured at first, then 177, then 137.  Since
    582cbc2 a line met once keeps its argument text, not its words (the node's share fell by
    more: tests/syntax/test_tables_repeat.py), so the rule's pattern and substitution were
    strings of its own: 237-261.  The rule now reads them from its directive's words: 137
    (the bounded tables of patterns' shapes and flags are counted when this test runs
    first)."""
    n = 2_000
    parsed = parse_text("".join(f"RewriteRule ^p{i}/(.*)$ /x{i}.php?q=$1 [L,QSA]\n"
                                for i in range(n)), "t.conf")
    directives = list(parsed.directives())
    for d in directives:
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    tracemalloc.start()
    config = RewriteConfig.from_directives(directives, "directory", "/www/t/")
    regex_module._compiled.cache_clear()  # a bounded cache of compiled patterns, not the rules'
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(config.rules) == n
    assert kept / n < 160, f"{kept / n:.0f} bytes a rule"


def test_rw005_does_not_compile_each_pattern_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The patterns of a file are more than the compile cache holds: RW005 asks each one
    whether it matches the empty path first, which its compile answered.  (No RewriteEngine
    On: SEC002's sample requests would run the rules, and compile them, besides.)"""
    n = 1_100
    compiled: list[bytes] = []
    real = pcre2.compile

    def counting(pattern: bytes, *args: object, **kwargs: object) -> object:
        compiled.append(pattern)
        return real(pattern, *args, **kwargs)

    regex_module._compiled.cache_clear()
    monkeypatch.setattr(regex_module.pcre2, "compile", counting)
    text = "".join(f"RewriteRule ^q{i}/(.*)$ /y{i}?q=$1 [L]\n"
                                          for i in range(n))
    text += "RewriteRule ^ - [L]\nRewriteRule ^z$ /w\n"
    found = finds("RW005", text)
    assert [f.line for f in found] == [n + 2]
    assert len([p for p in compiled if p.startswith(b"^q")]) == n


@pytest.mark.parametrize("line", [
    "RewriteRule ^a$ /x [L]",
    "RewriteRule !^a$ /x? [L]",
    "RewriteRule ^a$ /x?",
    "RewriteRule ^a$ - [F]",
    'RewriteRule "^a b$" "/q r"',          # quoted: the same words either way
    "RewriteRule ^a\\ b$ /x",               # parseargline keeps "\ " in the word; args do not
    "RewriteRule ^a$ /x\\ y [L]",            # the pattern is its word, the substitution not
    "RewriteRule '!^c d' /y?q",
])
def test_a_rule_reads_its_fields_from_the_directive_only_where_they_are_its_words(
        line: str) -> None:
    """A rule's pattern and substitution are what mod_rewrite's ``parseargline`` splits from
    the line, whether they are read from the directive's words (when equal) or kept."""
    [rule] = rules_of(line + "\n").rules
    first, second, flags = parse_arg_line(rule.directive.args_text)
    assert rule.raw_pattern == first and rule.raw_substitution == second
    assert rule.pattern == first.removeprefix("!") and rule.negate == first.startswith("!")
    assert rule.substitution == (second[:-1] if second.endswith("?") else second)
    assert str(rule) == f"RewriteRule {first} {second}" + (f" {flags}" if flags else "")


def test_a_rule_without_a_directive_keeps_its_own_fields() -> None:
    rule = RewriteRule(None, Regex("^a$"), "/b")
    assert (rule.pattern, rule.raw_pattern, rule.substitution) == ("^a$", "^a$", "/b")
    assert rule.search("a") is not None and rule.search("b") is None
