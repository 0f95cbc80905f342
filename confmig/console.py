"""What every command prints with: its two consoles and its one-line error.

Shared by the typer command line (:mod:`confmig.cli`) and the short path that runs
``confmig lint`` without it (:mod:`confmig.lint.command`), so both print alike.
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape


def consoles() -> tuple[Console, Console]:
    """stdout and stderr as the commands print to them (no highlighting, no wrapping)."""
    return (Console(highlight=False, soft_wrap=True),
            Console(stderr=True, highlight=False, soft_wrap=True))


def print_error(err: Console, message: str) -> None:
    """``error: message`` on one line (the message is text, not markup: a URL like
    ``http://[zz]/`` prints as given)."""
    err.print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)


def print_bytes_as_read() -> None:
    """Configuration bytes that are not UTF-8 are carried as surrogate escapes
    (confmig.syntax.parser.decode): printed, they are the very bytes that were read."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")
