"""Text taken from files — a file name, a line of a file, a message quoting one — prints
with its control characters escaped (confmig.console.printable): a directory named
``x\\n::error file=pwn,line=1::owned`` must not make ``confmig lint`` print a line that
starts with ``::error …``, which GitHub Actions reads as a workflow command, nor may an
ESC in a configuration line write to the terminal. JSON, SARIF and the github format
encode such text already and are unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from confmig.console import printable
from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths
from confmig.lint.reporters import render

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "x\n::error file=pwn,line=1::owned"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / HOSTILE / "sub").mkdir(parents=True)
    (site / HOSTILE / ".htaccess").write_text("Options +Indexes\nFoo\x1b[31mbar x\n")
    (site / HOSTILE / "sub" / ".htaccess").write_text("Options\t+Indexes\r\n")
    return site


@pytest.fixture
def result(tree: Path) -> LintResult:
    return lint_paths([tree], settings=Settings(cache=False))


def _no_file_text_starts_a_line(text: str) -> None:
    assert text.count("x\\x0a::error file=pwn,line=1::owned") >= 3
    for line in text.splitlines():
        assert not line.startswith("::"), line
    assert "\x1b" not in text and "\r" not in text


def test_text_report_escapes_names_lines_and_messages(result: LintResult) -> None:
    text = render(result, "text")  # rich's console
    _no_file_text_starts_a_line(text)
    assert "Invalid command 'Foo\\x1b[31mbar'" in text  # the message quoting the line
    assert " 2 | Foo\\x1b[31mbar x\n   | ^\n" in text     # the code frame


def test_lint_command_text_output(tree: Path) -> None:
    """The command as a CI job runs it (no terminal: confmig.console.PlainConsole), and its
    one-line error for a path under that directory."""
    env = {**os.environ, "COLUMNS": "200"}
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        env.pop(name, None)
    run = subprocess.run([sys.executable, "-m", "confmig", "lint", "--no-cache", str(tree)],
                         capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    assert run.returncode == 1, run.stderr
    _no_file_text_starts_a_line(run.stdout + run.stderr)
    missing = tree / HOSTILE / "nothere"
    run = subprocess.run([sys.executable, "-m", "confmig", "lint", "--no-cache", str(missing)],
                         capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    assert run.returncode == 2
    assert run.stderr == f"error: {printable(str(missing))}: no such file or directory\n"
    assert "\\x0a::error" in run.stderr


def test_machine_formats_carry_the_name_as_it_is(tree: Path, result: LintResult) -> None:
    hostile = str(tree / HOSTILE / ".htaccess")
    data = json.loads(render(result, "json"))
    assert hostile in {f["file"] for f in data["findings"]}
    assert "Invalid command 'Foo\x1b[31mbar'" in {f["message"].split(",")[0]
                                                   for f in data["findings"]}
    sarif = json.loads(render(result, "sarif"))
    uris = {unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in sarif["runs"][0]["results"]}
    assert "file://" + hostile in uris
    github = render(result, "github")
    assert all(line.startswith(("::error ", "::warning ", "::notice "))
               for line in github.splitlines())
    assert "x%0A%3A%3Aerror file=pwn%2Cline=1%3A%3Aowned" in github


@pytest.mark.parametrize(("text", "shown"), [
    ("a\nb", "a\\x0ab"), ("a\rb", "a\\x0db"), ("\x1b[31m", "\\x1b[31m"), ("\x7f\x85", "\\x7f\\x85"),
    ("a\u2028b\u2029", "a\\u2028b\\u2029"), ("a\tb", "a\tb"), ("é界\\[x]", "é界\\[x]"),
    ("\udcff", "\udcff"),  # a byte that is not UTF-8 prints as that byte (surrogateescape)
])
def test_printable(text: str, shown: str) -> None:
    assert printable(text) == shown
