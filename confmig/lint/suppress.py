"""Inline suppression: ``# confmig: ignore[CODE] reason`` on the line before a directive.

Apache has no end-of-line comments (a ``#`` after a directive is read as
arguments), so a suppression is a comment line of its own; it applies to the
next line that is neither blank nor a comment.  ``ignore[RW001,SEC]`` takes
several codes or prefixes.  A suppression must give a reason (LINT001) and must
suppress something (LINT002, like ruff's RUF100).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from confmig.lint.finding import Finding, Findings
from confmig.lint.rules.lint.lint001_suppression_without_reason import (
    SuppressionWithoutReason as LINT001,
)
from confmig.lint.rules.lint.lint002_unused_suppression import UnusedSuppression as LINT002

_SUPPRESSION = re.compile(r"^[ \t]*#[ \t]*confmig:[ \t]*ignore\[([^\]]*)\][ \t]*(.*?)\s*$")
MARKER = "confmig:"


@dataclass
class Suppression:
    line: int             # the comment's line
    column: int
    target: int           # the line it applies to
    codes: tuple[str, ...]
    reason: str
    used: set[str] = field(default_factory=set)

    def covers(self, code: str) -> str | None:
        """The selector of this suppression that matches ``code``, if any."""
        return next((c for c in self.codes if code.startswith(c)), None)


def parse_suppressions(lines: list[str]) -> list[Suppression]:
    out: list[Suppression] = []
    for index, text in enumerate(lines):
        if MARKER not in text:
            continue
        match = _SUPPRESSION.match(text)
        if not match:
            continue
        target = index + 1
        while target < len(lines) and (not lines[target].strip()
                                       or lines[target].lstrip().startswith("#")):
            target += 1
        codes = tuple(c.strip().upper() for c in match.group(1).split(",") if c.strip())
        column = len(text) - len(text.lstrip()) + 1
        out.append(Suppression(index + 1, column, target + 1, codes, match.group(2)))
    return out


def apply_suppressions(
    findings: Iterable[Finding],
    suppressions: dict[str, list[Suppression]],
    enabled: Callable[[str], bool],
    known_codes: Iterable[str],
) -> Findings:
    """Drop suppressed findings; add LINT001/LINT002 for bad suppressions."""
    by_target: dict[tuple[str, int], list[Suppression]] = {}
    for path, items in suppressions.items():
        for item in items:
            by_target.setdefault((path, item.target), []).append(item)
    if not by_target:  # nothing to drop or judge: as they are (not copied)
        return findings if isinstance(findings, Findings) else Findings(findings)
    kept = Findings()
    for finding in findings:
        hit = False
        for item in by_target.get((finding.file, finding.line), ()):
            selector = item.covers(finding.code)
            if selector is not None:
                item.used.add(selector)
                hit = True
        if not hit:
            kept.append(finding)
    known = list(known_codes)
    for path, items in suppressions.items():
        for item in items:
            kept.extend(_judge(path, item, enabled, known))
    return kept


def _judge(path: str, item: Suppression, enabled: Callable[[str], bool],
           known: list[str]) -> list[Finding]:
    out: list[Finding] = []

    def report(code: str, message: str, hint: str) -> None:
        if enabled(code):
            severity = LINT001.severity if code == LINT001.code else LINT002.severity
            out.append(Finding(code, message, path, item.line, item.column, severity, hint))

    if not item.codes:
        report(LINT002.code, "suppression names no rule code", "write ignore[CODE] reason")
    if not item.reason:
        report(LINT001.code, f"suppression of {', '.join(item.codes) or 'nothing'} gives no "
               "reason", "say why after the brackets: # confmig: ignore[CODE] reason")
    for code in item.codes:
        if code in item.used:
            continue
        matching = [k for k in known if k.startswith(code)]
        if not matching:
            report(LINT002.code, f"suppression names unknown rule code {code}",
                   "see `confmig rules` for the codes")
        elif any(enabled(k) for k in matching):
            report(LINT002.code, f"unused suppression: no {code} finding on line {item.target}",
                   "remove the suppression")
    return out

