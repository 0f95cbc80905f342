"""A command does not import what only other commands, or other inputs, need (issue 17: the
start is most of what a lint hook costs). Read from ``python -X importtime``'s list of the
modules a real run imported; how long they take is measured by ``bench/startup_speed.py``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IMPORTED = re.compile(r"import time:\s+\d+ \|\s+\d+ \| *(\S+)")

# Never needed by lint, parse or --help: the converters (and the whole model behind the httpd
# one), typer 0.29's pydantic, the process pool, the progress display off a terminal.
NEVER = ("confmig.convert.httpd", "confmig.convert.nginx", "confmig.convert.flask",
         "confmig.verify", "confmig.bench", "pydantic", "multiprocessing",
         "concurrent.futures", "rich.progress")


def imported(tmp_path: Path, *args: str, **environ: str) -> set[str]:
    """The modules ``confmig ARGS`` imports, printing to pipes (no terminal) unless
    *environ* says otherwise (FORCE_COLOR…)."""
    env = {**{k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")},
           "PYTHONPATH": os.pathsep.join(
               [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]), **environ}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "confmig", *args],
                         cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr[-2000:]
    names = {m[1] for m in map(IMPORTED.match, run.stderr.splitlines()) if m}
    assert "confmig" in names  # the list is really the run's
    return names


def loaded(names: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in packages))


@pytest.fixture
def htaccess(tmp_path: Path) -> Path:
    path = tmp_path / "site" / ".htaccess"
    path.parent.mkdir()
    path.write_text("Options -Indexes\nRewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n"
                    "Header set X-Frame-Options DENY\n")
    return path


def test_lint_of_one_file_loads_no_converter_no_pool_and_no_expression_parser(
        tmp_path: Path, htaccess: Path) -> None:
    names = imported(tmp_path, "lint", "--no-cache", "--no-config", str(htaccess))
    assert "confmig.lint.engine" in names
    # Lark and the expression parser are for files with an ap_expr (<If>, Require expr,
    # Header … expr=…: the next test); a plain lint
    # command line is parsed without typer (confmig.lint.command); the Apache
    # facts are read without importlib.resources (and its zipfile), settings without tomllib
    # when there is no settings file, difflib is for a misspelt directive, traceback for a
    # rule that raised, pkgutil for listing every module of the rules package; off a
    # terminal the report is written without rich (confmig.console.PlainConsole), and the
    # cache's temp file (tempfile, and shutil with its compressors) is for writing a cache,
    # hashlib (and OpenSSL, ~2 ms) for its keys and DUP001's digests of a rewrite block (this
    # file has one; the next test's has none), base64 for a Basic login the request model checks
    assert loaded(names, (*NEVER, "lark", "confmig.model.expr.parse", "typer", "click",
                          "confmig.cli", "importlib.resources", "zipfile",
                          "tomllib", "difflib", "traceback", "pkgutil", "rich",
                          "tempfile", "shutil", "bz2", "lzma", "base64")) == []
    # SEC002 asks the request model which sensitive files Apache would send with the file's
    # directory as the DocumentRoot (one decision, issue 11): the model is loaded for it —
    # without the expression model, which only an <If>, Require expr, Header … expr=… or
    # SetEnvIfExpr needs (the next tests)
    assert "confmig.model.evaluate" in names and "confmig.model.listed_files" in names
    assert loaded(names, ("confmig.model.expr",)) == []


def test_lint_of_one_file_without_rewrite_rules_loads_no_rewrite_engine(tmp_path: Path,
                                                                       htaccess: Path) -> None:
    # The request model (SEC002) runs a ruleset only where the file has one, and lint's
    # scopes read the Rewrite* directives without the engine that runs them
    htaccess.write_text("Options -Indexes\nHeader set X-Frame-Options DENY\n"
                        "<FilesMatch \"\\.(bak|sql)$\">\n    Require all denied\n"
                        "</FilesMatch>\n")
    names = imported(tmp_path, "lint", "--no-cache", "--no-config", str(htaccess))
    assert "confmig.model.evaluate" in names and "confmig.model.rewrite.parse" in names
    assert loaded(names, ("confmig.model.rewrite.engine", "confmig.model.rewrite.apply",
                          "confmig.model.rewrite.expand", "confmig.model.expr",
                          "hashlib", "_hashlib")) == []


def test_lint_on_a_terminal_prints_with_rich(tmp_path: Path, htaccess: Path) -> None:
    names = imported(tmp_path, "lint", "--no-cache", "--no-config", str(htaccess),
                     FORCE_COLOR="1")
    assert "rich.console" in names and "typer" not in names


def test_lint_of_one_file_without_sec002_loads_no_request_model(tmp_path: Path,
                                                                htaccess: Path) -> None:
    # (CTX011 asks the model which lines Apache refuses: the section, not a site)
    names = imported(tmp_path, "lint", "--no-cache", "--no-config", "--ignore", "SEC002,CTX011",
                     str(htaccess))
    # The other rules read the file and the Apache facts: no site is built, no request
    # evaluated, and each module's config is loaded where it is asked for (the expression
    # model where an expression is met, not the merge builder)
    assert loaded(names, ("confmig.model.evaluate", "confmig.model.site_builder",
                          "confmig.model.listed_files", "confmig.model.expr",
                          "confmig.model.merge.builder", "confmig.model.merge.vector")) == []


RULE_MODULES = """
import atexit, json, runpy, sys
def report():
    arity = sys.modules.get("confmig.apache.arity")
    info = getattr(getattr(arity, "_table", None), "cache_info", None)
    registry = sys.modules["confmig.apache.registry"].registry()
    print(json.dumps({"modules": sorted(m for m in sys.modules
                                        if m.startswith("confmig.lint.rules.")),
                      "arity_table": info().currsize if info else None,
                      "directives_decoded": sum(not isinstance(e[0], str)
                                                for e in registry._by_key.values() if e)}))
atexit.register(report)
sys.argv = ["confmig", *sys.argv[1:]]
runpy.run_module("confmig", run_name="__main__")
"""


def at_exit(tmp_path: Path, *args: str) -> dict[str, object]:
    """The rule modules ``confmig ARGS`` imported and whether it made the whole arity table,
    read from the process as it exits."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-c", RULE_MODULES, *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr[-2000:]
    seen: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
    return seen


def test_lint_imports_only_the_rules_a_file_needs(tmp_path: Path, htaccess: Path) -> None:
    # importlib.import_module (how a rule's module is imported when a file needs it) is not
    # in -X importtime's list: sys.modules at exit is asked instead.  A whole-file rule that
    # can find nothing without some directives (Rule.file_directives: the mod_rewrite
    # rules' Rewrite*, DEP001's Order/Allow/Deny, SEC010's Header) waits for a file with one
    htaccess.write_text("Options -Indexes\n")
    modules = at_exit(tmp_path, "lint", "--no-cache", "--no-config", str(htaccess))["modules"]
    assert isinstance(modules, list)
    assert "confmig.lint.rules.sec.sec001_directory_listing" in modules  # the list is real
    for never in ("rw.rw003_dangling_cond", "rw.rw005_unreachable_rules",
                  "perf.perf004_redirect_would_do", "dep.dep001_access_compat",
                  "sec.sec010_security_headers"):
        assert f"confmig.lint.rules.{never}" not in modules


def test_lint_of_one_file_makes_the_facts_of_its_directives_only(
        tmp_path: Path, htaccess: Path) -> None:
    # SYN002 and the model ask confmig.apache.arity.arity_of for the directives they meet;
    # the table of all ~640 is made only when something asks for ARITY itself
    seen = at_exit(tmp_path, "lint", "--no-cache", "--no-config", str(htaccess))
    assert "confmig.lint.rules.syn.syn002_argument_count" in seen["modules"]  # type: ignore[operator]
    assert seen["arity_table"] == 0
    # and the registry decodes the entries of the names it is asked for (data/registry.tsv),
    # not the 1,086 of its data files
    assert 0 < seen["directives_decoded"] < 50  # type: ignore[operator]


def test_a_lint_command_line_typer_must_parse_builds_the_app(tmp_path: Path,
                                                            htaccess: Path) -> None:
    names = imported(tmp_path, "lint", "--no-cache", "--no-config", "--", str(htaccess))
    assert "typer" in names and "confmig.cli" in names


def test_an_expression_is_parsed_when_the_file_has_one(tmp_path: Path, htaccess: Path) -> None:
    htaccess.write_text("<If \"%{HTTP_HOST} == 'example.com'\">\n"
                        "    Header set X-Host yes\n</If>\n")
    names = imported(tmp_path, "lint", "--no-cache", "--no-config", str(htaccess))
    assert "confmig.model.expr.parse" in names and "lark" in names
    assert loaded(names, NEVER) == []


def test_parse_loads_no_lint_and_no_model_evaluation(tmp_path: Path, htaccess: Path) -> None:
    names = imported(tmp_path, "parse", "--no-config", str(htaccess))
    assert loaded(names, (*NEVER, "confmig.lint", "confmig.model.evaluate",
                          "confmig.model.merge", "lark")) == []


def test_help_loads_no_command(tmp_path: Path) -> None:
    names = imported(tmp_path, "--help")
    assert loaded(names, (*NEVER, "confmig.lint", "confmig.model.merge",
                          "confmig.model.evaluate", "confmig.load", "lark")) == []
