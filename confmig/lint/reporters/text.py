"""Rich text: a code frame per finding (``file:line:col``, the line, a caret, the code,
severity, message and fix hint), then a summary of counts per code and severity.

Lines are ``(text, style)`` parts (:mod:`confmig.console`), not markup: what the file and
the messages hold is printed as it is, with rich or, off a terminal, without it."""

from __future__ import annotations

import io
import os
import stat
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING

from confmig.console import (
    Line,
    PlainConsole,
    print_error,
    printable,
    write_lines,
    write_table,
)
from confmig.lint.engine import LintResult
from confmig.lint.finding import Finding, Severity, codes_of, severities_of
from confmig.lint.reporters.summary import rule_names

if TYPE_CHECKING:
    from rich.console import Console

_STYLE = {Severity.error: "bold red", Severity.warning: "yellow", Severity.info: "cyan"}
FINDINGS_PER_PRINT = 200


@lru_cache(maxsize=64)
def _file_lines(path: str) -> tuple[str, ...]:
    """The lines of a regular file (a FIFO would block ``open()``; a finding is only ever
    about a file the linter read, so anything else has no lines to show)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return ()
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            text = handle.read()
    except (OSError, ValueError):
        return ()
    return tuple(line.rstrip("\r") for line in text.split("\n"))


def _frame(finding: Finding) -> list[Line]:
    if finding.line <= 0:
        return []  # about the file as a whole
    lines = _file_lines(finding.file)
    if not 0 < finding.line <= len(lines):
        return []
    raw = lines[finding.line - 1]
    # escaped as every part is (console.printable), before the tabs are expanded, so that
    # the caret stays under the column of a line holding a control character
    text = printable(raw).expandtabs(4)
    number = str(finding.line)
    pad = " " * len(number)
    start = max(finding.column - 1, 0)
    end = max((finding.end_column or finding.column + 1) - 1, start + 1)
    lead = " " * len(printable(raw[:start]).expandtabs(4))
    span = raw[start:end]
    width = max(end - start + len(printable(span)) - len(span), 1)
    style = _STYLE[finding.severity]
    return [
        [(" ", ""), (f"{pad} |", "blue")],
        [(" ", ""), (f"{number} |", "blue"), (f" {text}", "")],
        [(" ", ""), (f"{pad} |", "blue"), (f" {lead}", ""), ("^" * width, style)],
    ]


def _finding_lines(finding: Finding) -> list[Line]:
    """One finding as lines: location and message, code frame, hint, a blank line."""
    style = _STYLE[finding.severity]
    lines: list[Line] = [
        [(finding.location, "bold"), (": ", ""), (finding.code, style), (" ", ""),
         (finding.severity.value, style), (f": {finding.message}", "")],
        *_frame(finding)]
    if finding.hint:
        lines.append([(" ", ""), (f"{' ' * len(str(finding.line))} =", "blue"), (" ", ""),
                      ("hint:", "green"), (f" {finding.hint}", "")])
    lines.append([])
    return lines


def print_errors(result: LintResult, console: Console | PlainConsole) -> None:
    for error in result.errors:
        print_error(console, error)


def print_result(result: LintResult, console: Console | PlainConsole,
                 with_errors: bool = True) -> None:
    for note in result.notes:
        write_lines(console, [[(f"note: {note}", "dim")]])
    if result.notes:
        write_lines(console, [[]])
    # One print per batch of findings: rich's per-call overhead (not the text) is what a
    # file with tens of thousands of findings would otherwise spend its time on.
    batch: list[Line] = []
    for number, finding in enumerate(result.findings, start=1):
        batch.extend(_finding_lines(finding))
        if number % FINDINGS_PER_PRINT == 0:
            write_lines(console, batch)
            batch = []
    if batch:
        write_lines(console, batch)
    if with_errors:
        print_errors(result, console)
    print_summary(result, console)


def print_summary(result: LintResult, console: Console | PlainConsole) -> None:
    files = len(result.files)
    noun = "file" if files == 1 else "files"
    if not result.findings:
        cached = f" ({result.cached} cached)" if result.cached else ""
        status = ("No issues found", "bold green") if not result.errors \
            else ("Failed", "bold red")
        write_lines(console, [[status, (f" in {files} {noun}{cached}.", "")]])
        return
    severities = Counter(severities_of(result.findings))
    counted = [(f"{severities[s]} {s.value}{'s' if severities[s] != 1 else ''}", _STYLE[s])
               for s in Severity if severities[s]]
    summary: list[tuple[str, str]] = [
        (f"Found {len(result.findings)} finding{'s' if len(result.findings) != 1 else ''} (",
         "")]
    for number, part in enumerate(counted):
        summary.extend([(", ", "")] if number else [])
        summary.append(part)
    summary.append((f") in {files} {noun}.", ""))
    write_lines(console, [summary])
    names = rule_names()
    counts = Counter(codes_of(result.findings))
    severity_of = dict(zip(codes_of(result.findings), severities_of(result.findings),
                           strict=True))
    write_table(console, [[(f"{count:>5}", ""), (code, _STYLE[severity_of[code]]),
                           (names.get(code, "internal-error"), "")]
                          for code, count in sorted(counts.items())])


def render_text_plain(result: LintResult, width: int = 100) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False,
                      soft_wrap=True, color_system=None, emoji=False)
    print_result(result, console)
    return buffer.getvalue()
