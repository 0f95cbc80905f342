"""A parsed RewriteCond's memory (issue 10: the 1 MB ``templates`` shape, 2,400 conditions):
its test string and pattern read from the directive's words, the pattern compared against cut
from the pattern as written on each read, what its operator, ``!`` and flag field decide in
one object shared by the conditions with the same (:class:`CondFlags`)."""

from __future__ import annotations

import tracemalloc

import pytest

from confmig.model.rewrite import RewriteConfig
from confmig.model.rewrite.parse import parse_arg_line
from confmig.model.rewrite.rules import CondFlags, Condition
from confmig.syntax import parse_text


def config_of(text: str) -> RewriteConfig:
    parsed = parse_text(text, "t.conf")
    assert parsed.ok, parsed.errors
    return RewriteConfig.from_directives(list(parsed.directives()), "directory", "/www/")


@pytest.mark.parametrize("line", [
    "RewriteCond %{HTTP_HOST} =h{i}.example",
    "RewriteCond %{REQUEST_FILENAME} !-f",
    "RewriteCond %{TIME_HOUR} -lt{i} [OR]",
])
def test_a_parsed_condition_costs_less_than_its_own_fields(line: str) -> None:
    """Per condition of a file of conditions (of one rule), what the parse keeps besides the
    directives and their words, read (and kept) before as a lint does: a 144-byte dataclass
    of 15 fields, its test string and pattern as written (strings of its own since the
    nodes keep their argument text, not their words) and the pattern cut from it: 212-434
    bytes measured.  The condition (96 bytes) now reads them from its directive's words and
    shares its operator's and flags' object: ~113, its place in the rule's conditions
    included."""
    n = 2_000
    text = "".join(line.replace("{i}", str(i)) + "\n" for i in range(n)) + "RewriteRule ^ /x [L]\n"
    directives = list(parse_text(text, "t.conf").directives())
    for d in directives:
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    RewriteConfig.from_directives(directives[:2] + directives[-1:], "directory", "/www/u/")
    tracemalloc.start()
    config = RewriteConfig.from_directives(directives, "directory", "/www/t/")
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(config.rules[0].conditions) == n
    assert kept / n < 130, f"{kept / n:.0f} bytes a condition"


@pytest.mark.parametrize(("line", "pattern", "kind", "negate"), [
    ("RewriteCond %{HTTP_HOST} ^www\\. [NC]", "^www\\.", "regex", False),
    ("RewriteCond %{REQUEST_FILENAME} !-f", "-f", "-f", True),
    ("RewriteCond %{REQUEST_FILENAME} -h", "-h", "-l", False),
    ("RewriteCond %{HTTPS} !=on", "on", "=", True),
    ('RewriteCond %{QUERY_STRING} =""', "", "=", False),
    ('RewriteCond %{QUERY_STRING} !="" [OR]', "", "=", True),
    ("RewriteCond %{TIME_HOUR} <=12", "12", "<=", False),
    ("RewriteCond %{TIME_HOUR} <7", "7", "<", False),
    ("RewriteCond %{TIME_HOUR} !>=7", "7", ">=", True),
    ("RewriteCond %{TIME_HOUR} -lt7 [NV]", "7", "-lt", False),
    ("RewriteCond %{TIME_HOUR} -ne7", "7", "-eq", True),
    ("RewriteCond %{TIME_HOUR} !-ne7", "7", "-eq", False),
    ("RewriteCond expr \"%{REQUEST_URI} =~ m#^/a#\"", "%{REQUEST_URI} =~ m#^/a#", "expr", False),
    ("RewriteCond expr \"!-f %{REQUEST_FILENAME}\"", "-f %{REQUEST_FILENAME}", "expr", True),
    ("RewriteCond \"%{HTTP:X A}\" \"^a b$\" [NC,OR]", "^a b$", "regex", False),   # quoted
    ("RewriteCond '%{HTTP_HOST}' '!^c d'", "^c d", "regex", True),
    ("RewriteCond %{HTTP:X}\\ a ^a\\ b$", "^a\\ b$", "regex", False),   # "\ " kept in the word
    ("RewriteCond %{HTTP_HOST}  \t!^x$", "^x$", "regex", True),   # other white space
])
def test_a_conditions_fields_are_parseargline_s(line: str, pattern: str, kind: str,
                                                negate: bool) -> None:
    """A condition's test string, pattern as written and flag field are what mod_rewrite's
    ``parseargline`` splits from the line, whether they are read from the directive's words
    (when equal) or kept; its pattern is the one compared against."""
    config = config_of(line + "\nRewriteRule ^ /x\n")
    assert not config.errors, config.errors
    [cond] = config.rules[0].conditions
    test, raw_pattern, flags = parse_arg_line(cond.directive.args_text)  # type: ignore[misc,union-attr]
    assert (cond.test, cond.raw_pattern, cond.flags_text) == (test, raw_pattern, flags or "")
    assert (cond.pattern, cond.kind, cond.negate) == (pattern, kind, negate)
    assert str(cond) == f"RewriteCond {test} {raw_pattern}" + (f" {flags}" if flags else "")
    assert cond.nocase == ("NC" in (flags or "")) and cond.ornext == ("OR" in (flags or ""))
    assert cond.novary == ("NV" in (flags or ""))
    assert (cond.regex is not None) == (kind == "regex")
    assert (cond.expr is not None) == (kind == "expr")


def test_conditions_with_the_same_operator_and_flags_share_them() -> None:
    one, two, three, four = config_of(
        "RewriteCond %{REQUEST_FILENAME} !-f [OR]\nRewriteCond %{SCRIPT_FILENAME} !-f [OR]\n"
        "RewriteCond %{REQUEST_FILENAME} !-d [OR]\nRewriteCond %{REQUEST_FILENAME} -f\n"
        "RewriteRule ^ /x\n").rules[0].conditions
    assert one.flags is two.flags and one.ornext and one.negate
    assert three.flags is not one.flags and four.flags is not one.flags
    one.ornext = False
    assert not one.ornext and two.ornext and one.flags is not two.flags
    assert one.pattern == "-f" and one.raw_pattern == "!-f"


def test_a_nocase_the_operator_ignores_is_not_kept() -> None:
    config = config_of("RewriteCond %{REQUEST_FILENAME} -f [NC]\nRewriteRule ^ /x\n")
    [cond] = config.rules[0].conditions
    assert not cond.nocase and cond.flags_text == "[NC]"
    assert "NoCase option for non-regex pattern '-f'" in config.problems[0][1]


def test_a_condition_without_a_directive_keeps_its_own_fields() -> None:
    cond = Condition(None, "%{HTTPS}", "!=on", CondFlags("=", negate=True, cut=2))
    assert (cond.test, cond.raw_pattern, cond.pattern) == ("%{HTTPS}", "!=on", "on")
    assert str(cond) == "RewriteCond %{HTTPS} !=on" and cond.kind == "=" and cond.negate


def test_a_rules_conditions_are_a_tuple() -> None:
    """Not the list they were appended to, which keeps room for more (two conditions: 88
    bytes, their tuple 56); the conditions no rule follows stay a list."""
    config = config_of("RewriteCond %{HTTPS} !=on\nRewriteCond %{HTTP_HOST} ^a [NC]\n"
                       "RewriteRule ^ /x\nRewriteRule ^ /y\nRewriteCond %{HTTPS} =on\n")
    first, second = config.rules
    assert type(first.conditions) is tuple and len(first.conditions) == 2
    assert second.conditions == ()
    assert [str(c) for c in config.dangling_conditions] == ["RewriteCond %{HTTPS} =on"]
