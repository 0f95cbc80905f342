"""LINT002: an inline suppression that suppresses nothing.

The finding is made by :func:`confmig.lint.suppress.apply_suppressions` (it needs every
other rule's findings first); this class is the rule's code, docs and examples.
"""

from __future__ import annotations

from confmig.lint.finding import Severity
from confmig.lint.rule import Rule, register


@register
class UnusedSuppression(Rule):
    code = "LINT002"
    name = "unused-suppression"
    summary = "An inline suppression suppresses nothing"
    rationale = (
        "A suppression that no longer matches a finding (the line was fixed or moved, or the code "
        "is misspelt) would silently hide a future problem on that line. Like ruff's RUF100, "
        "confmig reports it so it can be removed."
    )
    bad = "# confmig: ignore[SYN003] legacy module\nOptions -Indexes\n"
    good = "Options -Indexes\n"
    severity = Severity.warning
    fix = "remove the suppression"
