"""``--format json``: a stable schema (``schema`` is bumped on any incompatible change)."""

from __future__ import annotations

import json
from typing import Any

from confmig import __version__
from confmig.lint.engine import LintResult
from confmig.lint.finding import Finding
from confmig.lint.reporters.summary import rule_names, summary

SCHEMA = 1


def finding_json(finding: Finding, names: dict[str, str]) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": names.get(finding.code, "internal-error"),
        "message": finding.message,
        "severity": finding.severity.value,
        "file": finding.file,
        "line": finding.line,
        "column": finding.column,
        "end_column": finding.end_column,
        "hint": finding.hint,
    }


def result_json(result: LintResult) -> dict[str, Any]:
    names = rule_names()
    return {
        "version": __version__,
        "schema": SCHEMA,
        "files_checked": len(result.files),
        "notes": result.notes,
        "errors": result.errors,
        "findings": [finding_json(f, names) for f in result.findings],
        "summary": summary(result),
        "exit_code": result.exit_code,
    }


def render_json(result: LintResult) -> str:
    return json.dumps(result_json(result), indent=2)
