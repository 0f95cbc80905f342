"""A parsed RewriteRule is its own Regex (issue 10: a 1 MB file of 20,000 rules kept a
56-byte Regex object per rule besides the rule): the same answers as a Regex of its pattern,
and less memory a rule (tests/model/test_rewrite_rule_memory.py
measures it)."""

from __future__ import annotations

import pickle

import pytest

from confmig.model.rewrite import RewriteConfig
from confmig.model.rewrite.regex import Regex
from confmig.syntax import parse_text


def rules_of(text: str) -> RewriteConfig:
    parsed = parse_text(text, "t.conf")
    assert parsed.ok, parsed.errors
    return RewriteConfig.from_directives(list(parsed.directives()), "directory",  # type: ignore[arg-type]
                                         "/www/")


@pytest.mark.parametrize(("line", "subjects"), [
    ("RewriteRule ^p5/(.*)$ /x.php?q=$1 [L,QSA]", ["p5/a/b", "p5/", "p6/a", "", "xp5/a"]),
    ("RewriteRule ^(?<first>[a-z]+)/(\\d+)$ /y [NC]", ["ab/12", "AB/12", "ab/x", ""]),
    ("RewriteRule !^admin/ /login [R=302,L]", ["admin/x", "user/x", ""]),
    ("RewriteRule ^(.*)$ - [E=X:1]", ["", "a", "a/b"]),
    ("RewriteRule ^ /i.php", ["", "x"]),
])
def test_a_rule_answers_as_a_regex_of_its_pattern(line: str, subjects: list[str]) -> None:
    [rule] = rules_of(line + "\n").rules
    assert rule.regex is rule and rule.pattern == rule.source
    alone = Regex(rule.pattern, rule.nocase)
    assert (rule.captures, rule.names, rule.nocase) == (alone.captures, alone.names,
                                                        alone.nocase)
    for subject in subjects:
        assert rule.matches(subject) == alone.matches(subject), subject
        got, want = rule.search(subject), alone.search(subject)
        assert (got is None) == (want is None), subject
        if got is not None and want is not None:
            assert got.all() == want.all()
        assert rule.named_groups(subject) == alone.named_groups(subject)
    assert str(rule) == line
    assert repr(rule) == f"<{line}>"


def test_a_rule_pickles_with_its_pattern_and_flags() -> None:
    [rule] = rules_of("RewriteRule ^a(b)?$ /x? [NC,L]\n").rules
    again = pickle.loads(pickle.dumps(rule))
    assert str(again) == str(rule) and again.nocase and again.last and again.qsnone
    assert again.search("AB") is not None and again.captures == 1
