"""Rich text: a code frame per finding (``file:line:col``, the line, a caret, the code,
severity, message and fix hint), then a summary of counts per code and severity."""

from __future__ import annotations

import io
import os
import stat
from collections import Counter
from functools import lru_cache

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from confmig.lint.engine import LintResult
from confmig.lint.finding import Finding, Severity
from confmig.lint.reporters.summary import rule_names

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


def _frame(finding: Finding) -> list[str]:
    if finding.line <= 0:
        return []  # about the file as a whole
    lines = _file_lines(finding.file)
    if not 0 < finding.line <= len(lines):
        return []
    raw = lines[finding.line - 1]
    text = raw.expandtabs(4)
    number = str(finding.line)
    pad = " " * len(number)
    lead = " " * len(raw[: max(finding.column - 1, 0)].expandtabs(4))
    width = max((finding.end_column or finding.column + 1) - finding.column, 1)
    style = _STYLE[finding.severity]
    return [
        f" [blue]{pad} |[/]",
        f" [blue]{number} |[/] {escape(text)}",
        f" [blue]{pad} |[/] {lead}[{style}]{'^' * width}[/]",
    ]


def _finding_lines(finding: Finding) -> list[str]:
    """One finding as markup lines: location and message, code frame, hint, a blank line."""
    style = _STYLE[finding.severity]
    lines = [f"[bold]{escape(finding.location)}[/]: [{style}]{finding.code}[/] "
             f"[{style}]{finding.severity.value}[/]: {escape(finding.message)}",
             *_frame(finding)]
    if finding.hint:
        lines.append(f" [blue]{' ' * len(str(finding.line))} =[/] [green]hint:[/] "
                     f"{escape(finding.hint)}")
    lines.append("")
    return lines


def print_errors(result: LintResult, console: Console) -> None:
    for error in result.errors:
        console.print(f"[bold red]error:[/] {escape(error)}")


def print_result(result: LintResult, console: Console, with_errors: bool = True) -> None:
    for note in result.notes:
        console.print(f"[dim]note: {escape(note)}[/]")
    if result.notes:
        console.print()
    # One print per batch of findings: rich's per-call overhead (not the text) is what a
    # file with tens of thousands of findings would otherwise spend its time on.
    batch: list[str] = []
    for number, finding in enumerate(result.findings, start=1):
        batch.extend(_finding_lines(finding))
        if number % FINDINGS_PER_PRINT == 0:
            console.print("\n".join(batch))
            batch = []
    if batch:
        console.print("\n".join(batch))
    if with_errors:
        print_errors(result, console)
    print_summary(result, console)


def print_summary(result: LintResult, console: Console) -> None:
    files = len(result.files)
    noun = "file" if files == 1 else "files"
    if not result.findings:
        cached = f" ({result.cached} cached)" if result.cached else ""
        status = "[bold green]No issues found[/]" if not result.errors else "[bold red]Failed[/]"
        console.print(f"{status} in {files} {noun}{cached}.")
        return
    severities = Counter(f.severity for f in result.findings)
    parts = [f"[{_STYLE[s]}]{severities[s]} {s.value}{'s' if severities[s] != 1 else ''}[/]"
             for s in Severity if severities[s]]
    console.print(f"Found {len(result.findings)} finding"
                  f"{'s' if len(result.findings) != 1 else ''} ({', '.join(parts)}) "
                  f"in {files} {noun}.")
    names = rule_names()
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
    counts = Counter(f.code for f in result.findings)
    severity_of = {f.code: f.severity for f in result.findings}
    for code, count in sorted(counts.items()):
        style = _STYLE[severity_of[code]]
        table.add_row(f"{count:>5}", f"[{style}]{code}[/]", names.get(code, "internal-error"))
    console.print(table)


def render_text_plain(result: LintResult, width: int = 100) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False,
                      soft_wrap=True, color_system=None)
    print_result(result, console)
    return buffer.getvalue()
