"""DUP002's working memory over one scope (issue 10): between its two readings of a scope it
keeps no print per directive, and the tables of keys met once are freed before the second
reading; the findings are those of the rule that kept every key."""

from __future__ import annotations

from tests.lint.test_lint_scopes import dup002_peak_per_line


def test_dup002_keeps_no_print_per_directive() -> None:
    """20,000 distinct header lines: four bit tables of 2**19 bits (13 bytes a line) at the
    end of the first reading.  Two arrays of 32-bit prints kept for the second reading made
    it 21 bytes a line and more (0.32 MB more at the peak of a 1 MB file's lint)."""
    lines = 20_000
    per_line, findings = dup002_peak_per_line(
        "".join(f"Header set X-{i} \"b c\"\n" for i in range(lines)), lines)
    assert findings == []
    assert per_line < 17, f"{per_line:.1f} bytes a directive"


def test_dup002_finds_each_repeat_and_override_in_a_large_scope() -> None:
    """Every 1,000th line repeats line 1 or overrides an earlier header: the same findings
    as one reading that kept every key (the order of the lines)."""
    lines = 20_000
    text = []
    expected = []
    for i in range(lines):
        if i and i % 1000 == 0:
            text.append("Header set X-0 \"b c\"\n")
            expected.append((i + 1, 'Header set X-0 b c repeats line 1: the repetition '
                                    'changes nothing'))
        elif i % 1000 == 500:
            text.append(f"Header set x-{i - 1} v\n")
            expected.append((i, f"Header set X-{i - 1} b c is overridden by line {i + 1} "
                                f"(Header set x-{i - 1} v) in this .htaccess: only the "
                                "later one applies"))
        else:
            text.append(f"Header set X-{i} \"b c\"\n")
    _, findings = dup002_peak_per_line("".join(text), lines)
    assert findings == expected
