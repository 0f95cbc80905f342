"""Counts shared by the reporters."""

from __future__ import annotations

from collections import Counter
from typing import Any

from confmig.lint import rule
from confmig.lint.engine import LintResult
from confmig.lint.finding import codes_of, severities_of


def rule_names() -> dict[str, str]:
    """Every rule's name by code (from the rules index: no rule is imported for it)."""
    return rule.rule_names()


def summary(result: LintResult) -> dict[str, Any]:
    by_code = Counter(codes_of(result.findings))
    by_severity = Counter(s.value for s in severities_of(result.findings))
    return {
        "total": len(result.findings),
        "by_severity": {s: by_severity.get(s, 0) for s in ("error", "warning", "info")},
        "by_code": dict(sorted(by_code.items())),
    }
