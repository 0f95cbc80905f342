"""``--format github``: workflow commands that GitHub Actions shows as annotations."""

from __future__ import annotations

from confmig.lint.engine import LintResult
from confmig.lint.finding import Severity

_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: LintResult) -> str:
    lines = []
    for f in result.findings:
        message = f.message + (f" ({f.hint})" if f.hint else "")
        where = f",line={f.line},col={f.column}" if f.line > 0 else ""  # the whole file
        lines.append(f"::{_LEVEL[f.severity]} file={_prop(f.file)}{where},"
                     f"title={_prop(f.code)}::{_data(message)}")
    for error in result.errors:
        lines.append(f"::error::{_data(error)}")
    return "\n".join(lines)
