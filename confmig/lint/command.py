"""``confmig lint`` as one function of its arguments (:func:`run_lint`), and a short parser of
its command line that needs no typer (:func:`parse_lint_argv`, issue 17).

A pre-commit hook, an editor or a shell loop pays for the whole process, and importing typer
and building the app of every command costs more than linting one file.  So
``confmig lint`` with plain arguments — PATHs and the options below, as ``--opt value``,
``--opt=value`` or ``-Xvalue`` — is parsed here and run without building the app; any other
command line (``--help``, an unknown option, a missing value, a format that is not one of
the choices, ``--``, a PATH that starts with ``-``) is left to the typer app
(:mod:`confmig.cli`), which decides and words the usage errors.  Both end in
:func:`run_lint`; tests/test_lint_fast_path.py checks that the options here are the typer
command's and that both command lines print the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from confmig.console import PlainConsole

FORMATS = ("text", "json", "sarif", "github")

# option → LintArgs field: options taking a value (repeatable ones collect a list) …
VALUE_OPTIONS = {"--config": "config", "-c": "config", "--define": "define", "-D": "define",
                 "--format": "fmt", "-f": "fmt", "--select": "select", "--ignore": "ignore",
                 "--extend-select": "extend_select"}
REPEATABLE = frozenset({"define", "select", "ignore", "extend_select"})
# … and flags.
FLAGS = {"--no-cache": "no_cache", "--no-config": "no_config",
         "--follow-symlinks": "follow_symlinks"}


@dataclass
class LintArgs:
    """The arguments of ``confmig lint``."""

    paths: list[Path]
    config: Path | None = None
    define: list[str] = field(default_factory=list)
    fmt: str = "text"
    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] | None = None
    no_cache: bool = False
    no_config: bool = False
    follow_symlinks: bool = False


def run_lint(args: LintArgs, out: Console | PlainConsole, err: Console | PlainConsole) -> int:
    """Lint, print the report, return the exit status (0 clean, 1 findings, 2 bad input).
    Raises :class:`confmig.lint.reporters.LintUsageError` for bad usage."""
    from confmig.console import PlainConsole, write_lines
    from confmig.fs import lookup_error
    from confmig.lint.reporters import LintUsageError, lint_report
    from confmig.load.server_config import ConfigChoiceError, server_config
    from confmig.progress import directory_progress

    # (a path that cannot even be looked up — too long a name… — is bad usage, said here
    # before anything asks Path.exists(), which raises for it: confmig.fs.lookup_error)
    for option, path in [("", p) for p in args.paths] + [("--config ", args.config)]:
        if path is not None and (reason := lookup_error(path)) is not None:
            raise LintUsageError(f"{option}{path}: {reason}")
    config = args.config
    if all(p.exists() for p in args.paths):
        try:
            config = server_config(config, args.paths, args.no_config,
                                   lambda note: write_lines(err, [[(note, "")]]))
        except ConfigChoiceError as exc:
            raise LintUsageError(str(exc)) from exc
    with directory_progress(None if isinstance(err, PlainConsole) else err) as on_directory:
        report = lint_report(args.paths, config, args.define, args.fmt, args.select,
                             args.ignore, args.extend_select, args.no_cache, on_directory,
                             args.follow_symlinks)
    report.print(out, err)
    return report.exit_code


def _value_option(word: str) -> tuple[str, str | None] | None:
    """(option, attached value or None) when *word* is one of :data:`VALUE_OPTIONS`."""
    name, eq, value = word.partition("=")
    if name.startswith("--") and name in VALUE_OPTIONS:
        return name, value if eq else None
    if not word.startswith("--") and word[:2] in VALUE_OPTIONS:
        return word[:2], word[2:] or None
    return None


def parse_lint_argv(argv: Sequence[str]) -> LintArgs | None:
    """The arguments after ``lint``, or None when the typer app should parse them."""
    values: dict[str, object] = {}
    paths: list[Path] = []
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word or word == "-":
            return None
        if not word.startswith("-"):
            paths.append(Path(word))
            continue
        if word in FLAGS:
            values[FLAGS[word]] = True
            continue
        option = _value_option(word)
        if option is None:
            return None
        name, value = option
        if value is None:
            if i == len(words) or words[i].startswith("-"):
                return None            # (typer says what is missing)
            value = words[i]
            i += 1
        key = VALUE_OPTIONS[name]
        if key in REPEATABLE:
            values.setdefault(key, []).append(value)  # type: ignore[union-attr]
        elif key == "fmt":
            if value not in FORMATS:
                return None
            values[key] = value
        else:
            values[key] = Path(value)
    if not paths:
        return None
    return LintArgs(paths, **values)  # type: ignore[arg-type]


def fast_main(argv: Sequence[str]) -> int | None:
    """Run ``confmig lint`` from *argv* (without the program name) when it is a plain lint
    command line; None when it is not, for the typer app to run."""
    if not argv or argv[0] != "lint":
        return None
    args = parse_lint_argv(argv[1:])
    if args is None:
        return None
    from confmig.console import lint_consoles, print_bytes_as_read, print_error, write_lines
    from confmig.lint.reporters import LintUsageError
    from confmig.syntax.ast import ReadLimitError

    print_bytes_as_read()
    out, err = lint_consoles()  # (off a terminal: the same text, without importing rich)
    try:
        return run_lint(args, out, err)
    except LintUsageError as exc:
        print_error(err, str(exc))
        return 2
    except ReadLimitError as exc:  # input beyond confmig's own limits: file:line, exit 2
        write_lines(err, [[(f"error: {exc}", "")]])
        return 2
    except KeyboardInterrupt:  # (as typer ends a command on ^C: status 130, nothing said)
        return 130
    except BrokenPipeError:
        raise
    except OSError as exc:  # a file no check foresaw: one line, exit 2 (as confmig.cli.main)
        from confmig.fs import os_error_line

        print_error(err, os_error_line(exc))
        return 2
