"""``--format json``: a stable schema (``schema`` is bumped on any incompatible change)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from confmig import __version__
from confmig.lint.engine import LintResult
from confmig.lint.finding import Finding
from confmig.lint.reporters.streamed import indented_chunks
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
    document = _document(result)
    document["findings"] = [finding_json(f, names) for f in result.findings]
    return document


def _document(result: LintResult) -> dict[str, Any]:
    """The document with its findings left out (an empty list)."""
    return {
        "version": __version__,
        "schema": SCHEMA,
        "files_checked": len(result.files),
        "notes": result.notes,
        "errors": result.errors,
        "findings": [],
        "summary": summary(result),
        "exit_code": result.exit_code,
    }


def json_chunks(result: LintResult) -> Iterator[str]:
    """``json.dumps(result_json(result), indent=2)`` in pieces, a finding at a time."""
    names = rule_names()
    return indented_chunks(_document(result), "findings", 1,
                           (finding_json(f, names) for f in result.findings))


def render_json(result: LintResult) -> str:
    return "".join(json_chunks(result))
