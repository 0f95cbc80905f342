"""Inline suppressions: ``# confmig: ignore[CODE] reason`` on the line before."""

from __future__ import annotations

from confmig.lint.engine import lint_text
from confmig.lint.suppress import parse_suppressions
from confmig.lint.testing import codes


def test_parse_targets_the_next_directive_line() -> None:
    lines = ["# confmig: ignore[SYN003, rw001] legacy", "", "# more words", "FooBar on"]
    (s,) = parse_suppressions(lines)
    assert s.line == 1 and s.target == 4 and s.codes == ("SYN003", "RW001")
    assert s.reason == "legacy"


def test_suppression_hides_the_finding() -> None:
    assert "SYN003" in codes(lint_text("FooBar on\n"))
    found = codes(lint_text("# confmig: ignore[SYN003] set by mod_foobar\nFooBar on\n"))
    assert found == []


def test_several_codes_and_prefixes() -> None:
    text = ("# confmig: ignore[SYN003,CTX] in-house module\nFooBar on\n"
            "# confmig: ignore[SYN] ok\nServerName x\n")
    found = codes(lint_text(text))
    # CTX001 on line 4 is not covered by ignore[SYN]: the suppression is unused
    assert found.count("CTX001") == 1 and "SYN003" not in found
    assert "LINT002" in found


def test_only_the_next_line_is_covered() -> None:
    text = "# confmig: ignore[SYN003] reason\nOptions -Indexes\nFooBar on\n"
    found = codes(lint_text(text))
    assert "SYN003" in found and "LINT002" in found


def test_missing_reason_is_reported_but_still_suppresses() -> None:
    found = codes(lint_text("# confmig: ignore[SYN003]\nFooBar on\n"))
    assert found == ["LINT001"]


def test_unknown_code_in_suppression() -> None:
    found = lint_text("# confmig: ignore[NOPE123] why\nOptions -Indexes\n")
    assert [f.code for f in found] == ["LINT002"]
    assert "unknown rule code NOPE123" in found[0].message


def test_a_deselected_code_is_not_called_unused() -> None:
    from confmig.lint.config import Settings

    text = "# confmig: ignore[SYN003] reason\nOptions -Indexes\n"
    found = lint_text(text, settings=Settings(select=("CTX",), extend_select=("LINT",)))
    assert codes(found) == []
