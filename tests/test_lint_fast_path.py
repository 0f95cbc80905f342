"""``confmig lint`` without typer (issue 17): the short parser of confmig.lint.command takes the
typer command's options, leaves every other command line to typer, and both print the same
bytes with the same exit status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from confmig.cli import app
from confmig.lint.command import (
    FLAGS,
    FORMATS,
    REPEATABLE,
    VALUE_OPTIONS,
    LintArgs,
    parse_lint_argv,
)

ROOT = Path(__file__).resolve().parents[1]
# The typer app alone, as the console script ran it before the short path.
TYPER = "import sys; from confmig.cli import main; sys.argv[0] = 'confmig'; main()"
FAST = "import sys; from confmig.__main__ import main; sys.argv[0] = 'confmig'; main()"


def test_the_short_parser_takes_exactly_the_typer_commands_options() -> None:
    command = typer.main.get_command(app).commands["lint"]   # type: ignore[attr-defined]
    options = [p for p in command.params if p.param_type_name == "option"]
    assert {o for p in options for o in p.opts} == set(VALUE_OPTIONS) | set(FLAGS)
    for param in options:
        fields = {VALUE_OPTIONS.get(o) or FLAGS.get(o) for o in param.opts}
        assert fields == {param.name}, param.opts
        assert param.is_flag == (param.opts[0] in FLAGS), param.name
        assert param.multiple == (param.name in REPEATABLE), param.name
        if param.name == "fmt":
            assert tuple(param.type.choices) == FORMATS
    [argument] = [p for p in command.params if p.param_type_name == "argument"]
    assert argument.name == "paths" and argument.nargs == -1 and argument.required


def test_parse_lint_argv() -> None:
    assert parse_lint_argv(["a", "--no-cache", "-fjson", "--select=RW", "--select", "SEC",
                            "-D", "X", "-DY", "b", "--config", "c.conf", "--no-config"]) == \
        LintArgs([Path("a"), Path("b")], Path("c.conf"), ["X", "Y"], "json", ["RW", "SEC"],
                 no_cache=True, no_config=True)
    assert parse_lint_argv(["a", "-f", "text", "-f", "sarif"]) == LintArgs([Path("a")],
                                                                            fmt="sarif")
    assert parse_lint_argv(["a", "-cc.conf", "--ignore=X", "--extend-select", "Y"]) == \
        LintArgs([Path("a")], Path("c.conf"), ignore=["X"], extend_select=["Y"])


@pytest.mark.parametrize("argv", [
    [], ["--no-cache"], ["a", "--help"], ["a", "-h"], ["a", "--nope"], ["a", "--format"],
    ["a", "--format", "xml"], ["a", "-f", "--no-cache"], ["--", "-a"], ["-"], [""],
    ["a", "--no-cache=1"], ["a", "--selec", "RW"],
])
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert parse_lint_argv(argv) is None


def run(code: str, args: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


CASES = {
    "findings": ["lint", "--no-cache", "--no-config", "site"],
    "clean": ["lint", "--no-cache", "--no-config", "clean/.htaccess"],
    "json, options after the path": ["lint", "site", "--no-config", "-fjson", "--no-cache",
                                     "--select=RW,SEC", "--ignore", "SEC010"],
    "sarif": ["lint", "--no-cache", "--no-config", "--format", "sarif", "site/.htaccess"],
    "github": ["lint", "--no-cache", "--no-config", "-f", "github", "site", "clean"],
    "defines": ["lint", "--no-cache", "--no-config", "-D", "OFF", "-DX", "site"],
    "no such file": ["lint", "--no-cache", "nowhere"],
    "unknown code": ["lint", "--no-cache", "--no-config", "site", "--select", "NOPE001"],
    "contradiction": ["lint", "--no-cache", "--config", "site/.htaccess", "--no-config",
                      "site"],
    "missing config": ["lint", "--no-cache", "--config", "none.conf", "site"],
    "beyond a limit": ["lint", "--no-cache", "--no-config", "deep/.htaccess"],
    "cached": ["lint", "--no-config", "site"],
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fast")
    (base / "site").mkdir()
    (base / "site" / ".htaccess").write_bytes(
        b"Options +Indexes\nRewriteEngine On\nRewriteRule ^old$ /new [R]\n"
        b"<IfDefine OFF>\nRewriteEngin On\n</IfDefine>\nHeader set X-Caf\xe9 1\n"
        b"Order allow,deny\nServerName example.com\nCaf\xe9 On\n")
    (base / "clean").mkdir()
    (base / "clean" / ".htaccess").write_text("Options -Indexes\n")
    (base / "deep").mkdir()
    (base / "deep" / ".htaccess").write_text("<IfModule x>\n" * 200 + "</IfModule>\n" * 200)
    return base


@pytest.mark.parametrize("case", CASES)
def test_both_command_lines_print_the_same(tree: Path, case: str) -> None:
    args = CASES[case]
    assert parse_lint_argv(args[1:]) is not None   # the short path is the one taken
    typer_run = run(TYPER, args, tree)
    fast_run = run(FAST, args, tree)
    assert fast_run == typer_run
    assert b"Traceback" not in typer_run[2]
    assert typer_run[0] in (0, 1, 2)


def test_a_command_line_left_to_typer_gets_typers_usage_error(tree: Path) -> None:
    code, _out, err = run(FAST, ["lint", "site", "--format", "xml"], tree)
    assert code == 2 and b"Invalid value for '--format'" in err
