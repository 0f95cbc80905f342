"""``confmig explain``: rendering and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.explain import ExplainError, explain_request, render_json, render_text

runner = CliRunner()


@pytest.fixture
def docroot(tmp_path: Path) -> Path:
    (tmp_path / ".htaccess").write_text(
        "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
        "RewriteRule ^(.*)$ index.php?q=$1 [L,QSA]\nAddDefaultCharset utf-8\n")
    (tmp_path / "index.php").write_text("x")
    (tmp_path / "style.css").write_text("x")
    return tmp_path


def test_explain_request_and_json(docroot: Path) -> None:
    answer = explain_request("http://example.com/blog?p=2", root=docroot)
    data = render_json(answer)
    assert data["status"] == 200 and data["file"] == "index.php" and data["location"] is None
    assert isinstance(data["headers"], dict) and data["steps"] and data["applied"]
    assert {"directive", "args", "file", "line"} <= set(data["applied"][0])
    json.dumps(data)


def test_render_text_shows_phases_rules_and_file_lines(docroot: Path) -> None:
    answer = explain_request("/blog", root=docroot, headers=["Accept: text/html"])
    console = Console(width=200, record=True)
    console.print(render_text(answer, "GET /blog"))
    text = console.export_text()
    assert "GET /blog → 200 OK" in text
    assert "rule '^(.*)$'" in text and "=> matched" in text
    assert "internal redirect" in text
    assert f"{docroot / '.htaccess'}:3" in text or ".htaccess:3" in text


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "give --root DOCROOT or --config httpd.conf"),
    ({"root": Path("/nonexistent-dir")}, "not a directory"),
    ({"config": Path("/nonexistent.conf")}, "no such file"),
])
def test_explain_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ExplainError, match=message):
        explain_request("/", **kwargs)


def test_cli_json_and_text(docroot: Path) -> None:
    result = runner.invoke(app, ["explain", "/style.css", "--root", str(docroot), "--format",
                                 "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["file"] == "style.css" and data["headers"]["Content-Type"] == "text/css"
    text = runner.invoke(app, ["explain", "/missing", "--root", str(docroot), "-H",
                               "X-A: 1", "--host", "example.org"])
    assert text.exit_code == 0 and "index.php" in text.output


def test_cli_config_and_vhost(tmp_path: Path) -> None:
    root = tmp_path / "www"
    root.mkdir()
    (root / "a.txt").write_text("x")
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"""
<VirtualHost *:80>
    ServerName one.example
    DocumentRoot "{root}"
    Redirect /old http://two.example/new
</VirtualHost>
<Directory "{root}">
    Require all granted
</Directory>
""")
    result = runner.invoke(app, ["explain", "http://one.example/old/x?q=1", "--config",
                                 str(conf), "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["status"], data["location"]) == (302, "http://two.example/new/x?q=1")


@pytest.mark.parametrize("args", [
    ["explain", "/a b", "--root", "."],
    ["explain", "/", "--root", ".", "-H", "nonsense"],
    ["explain", "/", "--no-config"],
])
def test_cli_bad_input_exits_2_with_one_line(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "error:" in result.output
