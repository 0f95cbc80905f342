"""The ``confmig`` command line: parse arguments, call one function, print.

Every command exits 0 when clean, 1 when it found something (lint findings,
verify differences), 2 on bad input or usage — with a one-line message, never a
traceback.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from confmig import __version__

app = typer.Typer(
    name="confmig",
    help="Read Apache httpd configuration the way Apache does: lint it, explain requests, "
         "convert .htaccess trees, and prove it on real servers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DefinesOption = Annotated[
    list[str] | None,
    typer.Option("-D", "--define", help="Define NAME as `apache2 -D NAME` does (repeatable)."),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Server config (httpd.conf/apache2.conf) in force."),
]


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {message}", markup=True, highlight=False)
    raise typer.Exit(code)


def version_callback(value: bool) -> None:
    if value:
        out.print(f"confmig {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=version_callback,
                                          is_eager=True, help="Show the version.")] = False,
) -> None:
    """confmig: Apache configuration, read as Apache reads it."""


class ParseFormat(StrEnum):
    json = "json"
    tree = "tree"


@app.command()
def parse(
    path: Annotated[Path | None, typer.Argument(help="Docroot, .htaccess file or server config.")]
    = None,
    config: ConfigOption = None,
    define: DefinesOption = None,
    fmt: Annotated[ParseFormat, typer.Option("--format", "-f")] = ParseFormat.tree,
) -> None:
    """Print the loaded configuration (includes resolved, errors collected)."""
    from confmig.load import load_path
    from confmig.load.report import workspace_json, workspace_tree
    from confmig.progress import directory_progress

    if path is None and config is None:
        fail("give a PATH (docroot, .htaccess or server config) or --config FILE")
    if path is not None and not path.exists():
        fail(f"{path}: no such file or directory")
    with directory_progress(err) as on_directory:
        ws = load_path(path, config, set(define or []), on_directory)
    if fmt is ParseFormat.json:
        out.print_json(json.dumps(workspace_json(ws)))
    else:
        out.print(workspace_tree(ws))
    for error in ws.errors:
        err.print(f"{error}", markup=False)
    raise typer.Exit(2 if ws.errors else 0)


class LintFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class RulesFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
def lint(
    paths: Annotated[list[Path], typer.Argument(help="Docroots, .htaccess files or server "
                                                     "configs.", show_default=False)],
    config: ConfigOption = None,
    define: DefinesOption = None,
    fmt: Annotated[LintFormat, typer.Option("--format", "-f")] = LintFormat.text,
    select: Annotated[list[str] | None, typer.Option("--select", help="Only these rules "
                                                     "(codes or prefixes, e.g. RW,SEC001).")]
    = None,
    ignore: Annotated[list[str] | None, typer.Option("--ignore", help="Skip these rules.")]
    = None,
    extend_select: Annotated[list[str] | None, typer.Option("--extend-select", help="Add "
                                                            "rules to the selection.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write "
                                                              ".confmig_cache/.")] = False,
) -> None:
    """Lint Apache configuration: exit 0 clean, 1 findings, 2 bad input."""
    from confmig.lint.reporters import LintUsageError, lint_report
    from confmig.progress import directory_progress

    try:
        with directory_progress(err) as on_directory:
            report = lint_report(paths, config, define or [], fmt.value, select, ignore,
                                 extend_select, no_cache, on_directory)
    except LintUsageError as exc:
        fail(str(exc))
    report.print(out)
    raise typer.Exit(report.exit_code)


@app.command()
def rules(
    fmt: Annotated[RulesFormat, typer.Option("--format", "-f")] = RulesFormat.text,
) -> None:
    """List every lint rule."""
    from confmig.lint.reporters.rules import print_rules, rules_json

    if fmt is RulesFormat.json:
        out.file.write(rules_json() + "\n")
    else:
        print_rules(out)


@app.command()
def rule(code: Annotated[str, typer.Argument(help="A rule code (SYN003) or name.")]) -> None:
    """Show one rule: what it finds, why, a bad and a good example."""
    from confmig.lint.reporters.rules import UnknownRule, print_rule

    try:
        print_rule(code, out)
    except UnknownRule as exc:
        fail(str(exc))


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
