"""confmig.console: styled lines print as they are, and ``PlainConsole`` (lint off a terminal,
issue 17: no rich imported) writes exactly the bytes rich writes there."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from confmig.console import (
    PlainConsole,
    consoles,
    print_error,
    rich_is_plain,
    write_lines,
    write_table,
)
from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths
from confmig.lint.reporters import render

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = ("TTY_COMPATIBLE", "FORCE_COLOR", "COLUMNS", "NO_COLOR", "TERM")
STYLES = st.sampled_from(["", "bold", "blue", "bold red", "cyan", "dim"])
# Text a finding may hold: markup-like brackets, backslashes, emoji-code-like colons, tabs,
# the control characters rich drops and those it keeps, wide and combining characters.
TEXT = st.text(st.sampled_from(list("ab :[]/\\=#\t\r\x07\x08\x0b\x0c\x1b\x7f界é\u0301-_1")),
               max_size=12)
PARTS = st.lists(st.tuples(TEXT, STYLES), max_size=5)


@pytest.fixture(autouse=True)
def _no_terminal_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


def both(print_with: Callable[[Console | PlainConsole], None]) -> tuple[str, str]:
    """What *print_with* writes on a PlainConsole and on the rich console of ``consoles()``,
    both printing to sys.stdout (here a StringIO: no terminal)."""
    written = []
    for make in (PlainConsole, lambda: consoles()[0]):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            console = make()
            assert rich_is_plain(sys.stdout) and not console.is_terminal
            print_with(console)
        written.append(out.getvalue())
    return written[0], written[1]


@settings(max_examples=300, deadline=None)
@given(st.lists(PARTS, max_size=4))
def test_plain_lines_are_richs_bytes(lines: list[list[tuple[str, str]]]) -> None:
    plain, rich = both(lambda console: write_lines(console, lines))
    assert plain == rich


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text("ab1- ", max_size=9), st.text("XY\t界", max_size=4),
                          st.text("cd", max_size=30)), min_size=1, max_size=4),
       st.integers(1, 60))
def test_plain_table_is_richs_at_every_width(rows: list[tuple[str, str, str]],
                                             columns: int) -> None:
    # narrower than the table, as wide, wider; and cells rich must lay out (tab, wide char)
    os.environ["COLUMNS"] = str(columns)
    try:
        table = [[(a, ""), (b, "cyan"), (c, "")] for a, b, c in rows]
        plain, rich = both(lambda console: write_table(console, table))
    finally:
        del os.environ["COLUMNS"]
    assert plain == rich


def test_the_lint_summary_table_fits_without_rich(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [[("    1", ""), ("SEC002", "cyan"), ("sensitive-files-reachable", "")],
            [("   12", ""), ("RW012", "cyan"), ("redirect-without-status", "")]]
    monkeypatch.setitem(sys.modules, "rich.table", None)  # importing it would fail
    write_table(PlainConsole(), rows)
    assert capsys.readouterr().out == ("    1  SEC002  sensitive-files-reachable\n"
                                       "   12  RW012   redirect-without-status  \n")


def test_errors_print_alike() -> None:
    plain, rich = both(lambda console: print_error(console, "http://[zz]/ [bold]x\\"))
    assert plain == rich == "error: http://[zz]/ [bold]x\\\n"


class FakeStream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("compatible", [None, "", "0", "1", "x"])
@pytest.mark.parametrize("force_color", [None, "", "1"])
def test_plain_exactly_where_rich_sees_no_terminal(monkeypatch: pytest.MonkeyPatch, tty: bool,
                                                   compatible: str | None,
                                                   force_color: str | None) -> None:
    for name, value in (("TTY_COMPATIBLE", compatible), ("FORCE_COLOR", force_color)):
        if value is not None:
            monkeypatch.setenv(name, value)
    stream = FakeStream(tty)
    assert rich_is_plain(stream) == (not Console(file=stream).is_terminal)


# What the text report shows of a file is the file: rich's markup dropped the backslash of
# `\[`, doubled a trailing one, and its emoji codes turned the location `:100:` into an emoji.
QUOTED = ("#\n" * 99 + "Options +Indexes\nRewriteEngine On\nRewriteRule ^a\\[0-9\\]$ /b [R]\n"
          "RewriteCond %{HTTP_HOST} x \\\nRewriteRule ^c$ /d [R]\n"
          "RewriteRule ^e$ /f [R] # :smile:\n")


def check_quoted(text: str, name: str) -> None:
    assert f"{name}:100:1: SEC001 warning" in text
    assert " 102 | RewriteRule ^a\\[0-9\\]$ /b [R]\n" in text
    assert " 103 | RewriteCond %{HTTP_HOST} x \\\n" in text
    assert " 105 | RewriteRule ^e$ /f [R] # :smile:\n" in text


def test_the_text_report_quotes_the_file_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / ".htaccess"
    path.write_text(QUOTED)
    text = render(lint_paths([path], settings=Settings(cache=False)), "text")
    check_quoted(text, str(path))


@pytest.mark.parametrize("force_color", [None, "1"])
def test_lint_prints_the_file_as_it_is_with_and_without_rich(tmp_path: Path,
                                                             force_color: str | None) -> None:
    (tmp_path / ".htaccess").write_text(QUOTED)
    env = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if force_color:
        env["FORCE_COLOR"] = force_color  # rich, colours and all
    done = subprocess.run([sys.executable, "-m", "confmig", "lint", "--no-cache",
                           "--no-config", ".htaccess"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    text = done.stdout
    if force_color:
        assert "\x1b[" in text
        text = "".join(part.split("m", 1)[-1] for part in text.split("\x1b["))
    check_quoted(text, ".htaccess")
