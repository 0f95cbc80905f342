"""Output formats for lint results — rich text, JSON, SARIF 2.1.0, GitHub annotations — and
:func:`lint_report`, the one call behind ``confmig lint``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from confmig.lint.engine import LintResult

if TYPE_CHECKING:
    from rich.console import Console

    from confmig.console import PlainConsole


class Format(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class LintUsageError(Exception):
    """Bad input for ``confmig lint``: a one-line message, exit status 2."""


def render(result: LintResult, fmt: Format | str) -> str:
    """The report for ``result`` as one string (text without colours)."""
    fmt = Format(fmt)
    if fmt is Format.json:
        from confmig.lint.reporters.json import render_json

        return render_json(result)
    if fmt is Format.sarif:
        from confmig.lint.reporters.sarif import render_sarif

        return render_sarif(result)
    if fmt is Format.github:
        from confmig.lint.reporters.github import render_github

        return render_github(result)
    from confmig.lint.reporters.text import render_text_plain

    return render_text_plain(result)


@dataclass
class LintReport:
    result: LintResult
    fmt: Format

    @property
    def exit_code(self) -> int:
        return self.result.exit_code

    def print(self, console: Console | PlainConsole,
              errors: Console | PlainConsole | None = None) -> None:
        """The report on *console*; input errors ("no such file"…) on *errors* (stderr),
        one line each — in the text format there only, the others also carry them."""
        if errors is not None:
            from confmig.lint.reporters.text import print_errors

            print_errors(self.result, errors)
        if self.fmt is Format.text:
            from confmig.lint.reporters.text import print_result

            print_result(self.result, console, with_errors=errors is None)
            return
        if self.fmt is Format.json:  # streamed: one finding's text at a time (issue 10)
            from confmig.lint.reporters.json import json_chunks

            console.file.writelines(json_chunks(self.result))
            console.file.write("\n")
            return
        if self.fmt is Format.sarif:
            from confmig.lint.reporters.sarif import sarif_chunks

            console.file.writelines(sarif_chunks(self.result))
            console.file.write("\n")
            return
        text = render(self.result, self.fmt)
        if text:
            console.file.write(text + "\n")


def lint_report(
    paths: Sequence[Path],
    config: Path | None = None,
    defines: Sequence[str] = (),
    fmt: Format | str = Format.text,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    extend_select: list[str] | None = None,
    no_cache: bool = False,
    on_directory: Callable[[int], None] | None = None,
    follow_symlinks: bool = False,
) -> LintReport:
    """Check the inputs, resolve the settings, lint.  Raises :class:`LintUsageError`."""
    from confmig.lint.config import SettingsError, load_settings
    from confmig.lint.engine import lint_paths
    from confmig.lint.rule import rule_codes

    if not paths:
        raise LintUsageError("give at least one PATH (docroot, .htaccess or server config)")
    for path in paths:
        if not path.exists():
            raise LintUsageError(f"{path}: no such file or directory")
    if config is not None and not config.is_file():
        raise LintUsageError(f"--config {config}: no such file")
    try:
        settings = load_settings(paths[0]).with_cli(select, ignore, extend_select,
                                                    False if no_cache else None)
        settings.validate(rule_codes())
    except SettingsError as exc:
        raise LintUsageError(str(exc)) from exc
    result = lint_paths(paths, config, defines, settings, on_directory=on_directory,
                        follow_symlinks=follow_symlinks)
    return LintReport(result, Format(fmt))
