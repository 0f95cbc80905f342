"""Equal finding messages are one string (issue 10: a DUP002 finding for each of 47,620 equal
lines held its own copy of the same message), and the table behind it does not outlive a lint."""

from __future__ import annotations

from pathlib import Path

from confmig.lint import finding
from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths


def test_equal_messages_are_one_string_and_the_table_is_emptied(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text('Header set X-A "b c"\n' * 200)
    result = lint_paths([tmp_path], settings=Settings(cache=False), jobs=1)
    repeats = [f for f in result.findings if f.code == "DUP002"]
    assert len(repeats) == 199
    assert len({f.message for f in repeats}) == 1
    assert len({id(f.message) for f in repeats}) == 1
    assert not finding._messages


def test_the_table_is_bounded() -> None:
    try:
        made = [finding.Finding("X000", f"message {i}", "f", 1, 1, finding.Severity.info)
                for i in range(finding._SHARED_ENTRIES + 100)]
        assert len(finding._messages) == finding._SHARED_ENTRIES
        assert made[-1].message == f"message {finding._SHARED_ENTRIES + 99}"
    finally:
        finding.forget_messages()
