"""What every command prints with: its two consoles, styled lines and its one-line error.

Shared by the typer command line (:mod:`confmig.cli`) and the short path that runs
``confmig lint`` without it (:mod:`confmig.lint.command`), so both print alike.

Styled text is a list of lines, each a sequence of ``(text, style)`` parts
(:func:`write_lines`). On a rich console it is printed as rich ``Text``, never as markup: a
configuration line such as ``RewriteRule ^a\\[0-9\\]`` or ``… \\`` (a continuation) and a
location like ``file:100:1`` print as they are, where rich's markup would drop the
backslash before ``[``, double a trailing one, and read ``:100:`` as an emoji code.

``confmig lint`` off a terminal prints with :class:`PlainConsole` instead
(:func:`lint_consoles`): the same bytes rich would write there, without importing rich —
a fifth of what a lint hook's process costs (issue 17). tests/test_console.py holds the two
to each other.
"""

from __future__ import annotations

import builtins
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

Part = tuple[str, str]     # (text, rich style; "" for none)
Line = Sequence[Part]

# The characters :func:`printable` escapes: the control characters (C0 but tab, DEL, C1)
# and the line and paragraph separators, as ``\\xNN`` / ``\\uNNNN`` (as ``confmig explain``
# escapes them, confmig.model.explain.safe). A file name or a configuration line holding a
# newline would otherwise start a line of the report with text of the file's own — a
# ``::error …`` line that a CI runner (GitHub Actions) reads as a workflow command — and an
# ESC would write to the terminal. Surrogate escapes (bytes that are not UTF-8) stay: they
# print as the bytes read (:func:`print_bytes_as_read`), none of them a control character.
_ESCAPED = str.maketrans({c: (f"\\x{c:02x}" if c <= 0xFF else f"\\u{c:04x}")
                          for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029)
                          if c != 0x09})
TAB_SIZE = 8               # rich's default tab size


def consoles() -> tuple[Console, Console]:
    """stdout and stderr as the commands print to them (no highlighting, no wrapping, no
    emoji codes: ``:100:`` in a location stays ``:100:``)."""
    from rich.console import Console

    return (Console(highlight=False, soft_wrap=True, emoji=False),
            Console(stderr=True, highlight=False, soft_wrap=True, emoji=False))


class PlainConsole:
    """A stream that rich would print to without colour or any other terminal feature
    (:func:`rich_is_plain`): :func:`write_lines` and :func:`write_table` write its text
    without importing rich. Only those two and ``file`` / ``is_terminal`` are offered."""

    is_terminal = False

    def __init__(self, stderr: bool = False) -> None:
        self.stderr = stderr

    @property
    def file(self) -> TextIO:
        """The stream now (tests swap ``sys.stdout``), as rich's ``Console.file``."""
        return sys.stderr if self.stderr else sys.stdout

    @property
    def width(self) -> int:
        """The width rich gives a console of unknown size: ``COLUMNS``, else the size of
        the first terminal among stdin, stdout and stderr, else 80."""
        columns = os.environ.get("COLUMNS")
        if columns is not None and columns.isdigit():
            return int(columns)
        width = 0
        for fd in (0, 1, 2):
            try:
                width = os.get_terminal_size(fd).columns
            except (AttributeError, ValueError, OSError):
                continue
            break
        return width or 80

    def rich(self) -> Console:
        """The rich console this one stands for (for what it does not lay out itself)."""
        from rich.console import Console

        return Console(stderr=self.stderr, highlight=False, soft_wrap=True, emoji=False)



def rich_is_plain(stream: TextIO | None) -> bool:
    """Whether rich's ``Console`` would see no terminal on *stream* (its ``is_terminal``:
    ``TTY_COMPATIBLE``, then ``FORCE_COLOR``, then ``isatty()``), so that it prints the bare
    text. Anything this cannot vouch for (Windows, Jupyter, no stream) is left to rich."""
    if stream is None or sys.platform == "win32" or hasattr(builtins, "get_ipython"):
        return False
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "0"
    force_color = os.environ.get("FORCE_COLOR")
    if force_color is not None:
        return force_color == ""
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # a closed stream (rich: no terminal)
        return True


def lint_consoles() -> tuple[Console | PlainConsole, Console | PlainConsole]:
    """stdout and stderr for ``confmig lint``: a :class:`PlainConsole` where rich would
    print plain text anyway, else rich's (:func:`consoles`)."""
    out_plain, err_plain = rich_is_plain(sys.stdout), rich_is_plain(sys.stderr)
    if out_plain and err_plain:
        return PlainConsole(), PlainConsole(stderr=True)
    out, err = consoles()
    return (PlainConsole() if out_plain else out, PlainConsole(stderr=True) if err_plain else err)


def printable(text: str) -> str:
    """*text* with its control characters (but tab) and line separators escaped
    (``\\x0a`` for a newline): what the text reports print of a file name, a line of a
    file or a message, so that no text of a file begins a line of the report or writes to
    the terminal. A backslash stays as it is (configuration lines are full of them)."""
    return text if text.isprintable() else text.translate(_ESCAPED)


def clean(line: Line) -> list[Part]:
    """The parts as both consoles print them: :func:`printable` (so rich has no control
    character left to drop) and tabs expanded (to :data:`TAB_SIZE` columns, counting
    characters) before rich sees them, so that both consoles write the same text."""
    parts: list[Part] = []
    column = 0
    for text, style in line:
        text = printable(text)
        if "\t" in text:
            text = (" " * column + text).expandtabs(TAB_SIZE)[column:]
        column += len(text)  # (no newline is left in it)
        parts.append((text, style))
    return parts


def write_lines(console: Console | PlainConsole, lines: Iterable[Line]) -> None:
    """Print *lines* (one ``print`` for all of them: rich's cost is per call)."""
    if isinstance(console, PlainConsole):
        file = console.file
        file.write("\n".join("".join(text for text, _ in clean(line)) for line in lines)
                   + "\n")
        file.flush()  # (as rich does after each print: stdout and stderr stay in order)
        return
    from rich.text import Text

    out = Text()
    for number, line in enumerate(lines):
        if number:
            out.append("\n")
        for text, style in clean(line):
            out.append(text, style or None)
    console.print(out)


def write_table(console: Console | PlainConsole, rows: Sequence[Sequence[Part]],
                gap: int = 2) -> None:
    """*rows* as a table without borders or header, columns *gap* apart (cells padded to
    their column's width, none after the last column), as rich's ``Table`` lays it out
    when it fits the console; rich lays out what does not fit, or holds an empty cell or
    characters wider or narrower than one column."""
    cells = [[clean([part])[0] for part in row] for row in rows]
    widths = [max(len(row[i][0]) for row in cells) for i in range(len(cells[0]))] \
        if cells else []
    if isinstance(console, PlainConsole) and cells and all(
            len(row) == len(widths) and all(text and text.isascii() and text.isprintable()
                                            for text, _ in row) for row in cells) \
            and sum(widths) + gap * (len(widths) - 1) <= console.width:
        write_lines(console, [[(((" " * gap) if i else "") + text.ljust(widths[i]), "")
                               for i, (text, _) in enumerate(row)] for row in cells])
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, gap, 0, 0))
    for row in cells:
        table.add_row(*(Text.assemble((text, style)) for text, style in row))
    (console.rich() if isinstance(console, PlainConsole) else console).print(table)


def print_error(err: Console | PlainConsole, message: str) -> None:
    """``error: message`` on one line (the message is text, not markup: a URL like
    ``http://[zz]/`` prints as given)."""
    write_lines(err, [[("error:", "bold red"), (" " + message, "")]])


def print_bytes_as_read() -> None:
    """Configuration bytes that are not UTF-8 are carried as surrogate escapes
    (confmig.syntax.parser.decode): printed, they are the very bytes that were read."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")
