"""`confmig parse`: JSON shape, tree output, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from confmig.cli import app
from confmig.load import load_config, load_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def test_parse_json_of_the_demo_site_lists_every_access_file() -> None:
    result = runner.invoke(app, ["parse", str(FIXTURES / "demo-site"), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "ok" and doc["errors"] == []
    files = sorted(Path(f["file"]).relative_to(FIXTURES / "demo-site").as_posix()
                   for f in doc["config"])
    assert files == [".htaccess", "assets/.htaccess", "blog/.htaccess", "old/.htaccess",
                     "private/.htaccess", "shop/.htaccess"]
    root = next(f for f in doc["config"] if f["file"].endswith("demo-site/.htaccess"))
    first = root["parsed"][0]
    assert first == {"directive": "Options", "line": 2, "column": 1,
                     "args": ["-Indexes", "+FollowSymLinks"]}
    section = next(d for d in root["parsed"] if d.get("section"))
    assert section["directive"] == "IfModule" and section["block"][0]["directive"] == "Header"


def test_parse_json_of_a_server_config_resolves_includes() -> None:
    result = runner.invoke(app, ["parse", str(FIXTURES / "demo-httpd.conf"), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    names = [Path(f["file"]).name for f in doc["config"]]
    assert names == ["demo-httpd.conf", "security.conf"]
    vhost = next(d for d in doc["config"][0]["parsed"] if d["directive"] == "VirtualHost")
    include = next(d for d in vhost["block"] if d["directive"] == "IncludeOptional")
    assert include["includes"] == [1]


def test_parse_errors_exit_2_with_file_line_column(tmp_path: Path) -> None:
    bad = tmp_path / ".htaccess"
    # mod_rewrite is not in Debian's default set, so this unclosed section is false:
    # Apache soaks to the end of the file and refuses it.
    bad.write_text("Options None\n<IfModule mod_rewrite.c>\nRewriteEngine On\n")
    result = runner.invoke(app, ["parse", str(bad), "--format", "json"])
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert doc["status"] == "failed"
    assert doc["errors"] == [{"file": str(bad), "line": 2, "column": 1,
                              "error": "Expected </IfModule> before end of configuration"}]
    assert f"{bad}:2:1: Expected </IfModule> before end of configuration" in result.stderr


def test_parse_tree_output_names_files_and_directives() -> None:
    result = runner.invoke(app, ["parse", str(FIXTURES / "demo-site" / "blog" / ".htaccess")])
    assert result.exit_code == 0
    assert "RewriteBase" in result.stdout and "/blog/" in result.stdout


def test_missing_path_is_a_one_line_error() -> None:
    result = runner.invoke(app, ["parse", "/nonexistent/dir"])
    assert result.exit_code == 2
    assert "no such file or directory" in result.stderr
    assert "Traceback" not in result.output


def test_python_dash_m_runs_the_cli() -> None:
    proc = subprocess.run([sys.executable, "-m", "confmig", "--version"], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("confmig ")


_FRAGMENTS = ["<IfModule a>", "</IfModule>", "Include x.conf", "IncludeOptional *.conf",
              "Define A b", "${A}", "<IfDefine A>", "</IfDefine>", "<IfVersion >= 2.4>",
              "</IfVersion>", "<IfVersion ~ (>", "Options", '"', "\\", "\n", " ", "#",
              "<VirtualHost *>", "</VirtualHost>", "<IfFile /etc>", "</IfFile>", "Include /"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map(" ".join))
def test_loader_never_raises_on_mutated_configs(tmp_path: Path, text: str) -> None:
    conf = tmp_path / "httpd.conf"
    conf.write_text(text.replace(" \n ", "\n"))
    (tmp_path / "x.conf").write_text("Include httpd.conf\n")
    loaded = load_config(conf, environ={})
    for error in loaded.errors:
        assert error.message
    ws = load_path(conf)
    assert ws.server is not None


def test_parse_tree_shows_odd_file_names_as_they_are(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory name that reads as rich markup (``a[/bold]b``: a MarkupError traceback) or
    holds a newline (a report line beginning ``::error``, which GitHub Actions reads as a
    command) is shown, escaped, in the tree; an error inside such a file too."""
    odd = tmp_path / "a[/bold]b"
    nl = tmp_path / "x\n::error file=p::o"
    for folder, text in ((odd, "Options -Indexes\n"), (nl, "<Files a>\n")):
        folder.mkdir(parents=True)  # "a[" holds "bold]b"
        (folder / ".htaccess").write_text(text)
    monkeypatch.chdir(tmp_path)  # short names: the tree is not cut at the width
    result = CliRunner().invoke(app, ["parse", "."])
    assert result.exit_code == 2, result.output  # the unclosed <Files>
    assert "a[/bold]b/.htaccess" in result.stdout
    assert "x\\x0a::error file=p::o/.htaccess" in result.stdout
    assert "x\\x0a::error file=p::o/.htaccess:1:1: <Files> was not closed" in result.stderr
    assert not any(line.lstrip("│├└─ ").startswith("::") for line in result.output.splitlines())
