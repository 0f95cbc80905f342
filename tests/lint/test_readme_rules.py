"""The README's rule table lists every registered rule with its code, name and severity."""

from __future__ import annotations

from pathlib import Path

from confmig.lint.rule import all_rules

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_rule_is_in_the_readme_table() -> None:
    text = README.read_text()
    for rule in all_rules():
        row = f"| `{rule.code}` | {rule.name} | {rule.severity.value} |"
        assert row in text, f"README lacks the row for {rule.code}: {row}"
    assert f"| `confmig lint PATH` | {len(all_rules())} rules" in text
