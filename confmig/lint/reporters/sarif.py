"""``--format sarif``: SARIF 2.1.0, with every rule's metadata (for code-scanning UIs)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from confmig import __version__
from confmig.lint.engine import INTERNAL_CODE, LintResult
from confmig.lint.finding import Finding, Severity
from confmig.lint.reporters.streamed import indented_chunks
from confmig.lint.rule import Rule, all_rules

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "note"}


def rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    help_text = f"{rule.summary}\n\nBad:\n{rule.bad}\nGood:\n{rule.good}"
    markdown = (f"{rule.rationale}\n\nBad:\n\n```apache\n{rule.bad}```\n\n"
                f"Good:\n\n```apache\n{rule.good}```\n")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": help_text, "markdown": markdown},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": [rule.code.rstrip("0123456789")]},
    }


INTERNAL_DESCRIPTOR = {
    "id": INTERNAL_CODE,
    "name": "internal-error",
    "shortDescription": {"text": "A lint rule failed with an exception"},
    "fullDescription": {"text": "confmig reports a rule that crashed instead of stopping."},
    "help": {"text": "Please report it with the file that triggered it."},
    "defaultConfiguration": {"level": "error"},
}


def _uri(path: str) -> str:
    """*path* as an RFC 3986 URI (absolute: ``file:///…``) or relative reference: every byte
    but unreserved characters and ``/`` percent-encoded — the file name's own bytes, so a
    name read with surrogateescape gets back its raw bytes, and a newline is ``%0A``."""
    posix = Path(path).as_posix() if path else path
    try:
        raw = os.fsencode(posix)
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        raw = posix.encode("utf-8", "surrogatepass")
    quoted = quote(raw, safe="/")
    return "file://" + quoted if posix.startswith("/") else quoted


def sarif_log(result: LintResult) -> dict[str, Any]:
    log, results = _log(result)
    log["runs"][0]["results"] = list(results)
    return log


def _result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    text = f.message + (f" — {f.hint}" if f.hint else "")
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(f.file)}}
    if f.line > 0:  # else about the file as a whole: no region
        region = {"startLine": f.line, "startColumn": max(f.column, 1)}
        if f.end_column:
            region["endColumn"] = f.end_column
        location["region"] = region
    return {
        "ruleId": f.code,
        "ruleIndex": index.get(f.code, index[INTERNAL_CODE]),
        "level": _LEVEL[f.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": location}],
    }


def _log(result: LintResult) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The log with its results left out (an empty list), and the results, made on demand."""
    rules = [rule_descriptor(r) for r in all_rules()] + [INTERNAL_DESCRIPTOR]
    index = {r["id"]: i for i, r in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "confmig", "version": __version__, "rules": rules}},
        "results": [],
        "columnKind": "unicodeCodePoints",
    }
    if result.notes or result.errors:
        run["invocations"] = [{
            "executionSuccessful": not result.errors and not result.internal_errors,
            "toolExecutionNotifications": [
                {"level": "note", "message": {"text": n}} for n in result.notes
            ] + [{"level": "error", "message": {"text": e}} for e in result.errors],
        }]
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return log, (_result(f, index) for f in result.findings)


def sarif_chunks(result: LintResult) -> Iterator[str]:
    """``json.dumps(sarif_log(result), indent=2)`` in pieces, a result at a time."""
    log, results = _log(result)
    return indented_chunks(log, "results", 3, results)


def render_sarif(result: LintResult) -> str:
    return "".join(sarif_chunks(result))
