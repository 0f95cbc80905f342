"""``confmig lint``, ``confmig rules``, ``confmig rule``: exit codes and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from confmig.cli import app

runner = CliRunner()


def run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean" / ".htaccess").write_text("Options -Indexes\n")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / ".htaccess").write_text("RewriteEngin On\n")
    assert run("lint", "--no-cache", str(tmp_path / "clean")).exit_code == 0
    bad = run("lint", "--no-cache", str(tmp_path / "bad"))
    assert bad.exit_code == 1 and "SYN003" in bad.output
    missing = run("lint", str(tmp_path / "nope"))
    assert missing.exit_code == 2
    assert missing.output.strip().count("\n") == 0 and "no such file" in missing.output
    assert "Traceback" not in missing.output


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text("Options -Indexes\n")
    for args in (["--select", "NOPE"], ["--config", str(tmp_path / "none.conf")]):
        res = run("lint", str(tmp_path), *args)
        assert res.exit_code == 2, res.output
        assert res.output.startswith("error: ") and res.output.strip().count("\n") == 0
    (tmp_path / ".confmig.toml").write_text("select = [")
    res = run("lint", str(tmp_path))
    assert res.exit_code == 2 and "invalid TOML" in res.output


def test_select_ignore_and_formats(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text("RewriteEngin On\nServerName x\n")
    res = run("lint", "--no-cache", str(tmp_path), "--select", "CTX", "--format", "json")
    data = json.loads(res.stdout)
    assert [f["code"] for f in data["findings"]] == ["CTX001"]
    res = run("lint", "--no-cache", str(tmp_path), "--ignore", "CTX001,SYN003")
    assert res.exit_code == 0
    res = run("lint", "--no-cache", str(tmp_path), "-f", "github")
    assert res.stdout.count("::error ") == 2
    res = run("lint", "--no-cache", str(tmp_path), "-f", "sarif")
    assert json.loads(res.stdout)["version"] == "2.1.0"


def test_pyproject_settings_apply(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.confmig]\nignore = ["SYN003"]\n')
    (tmp_path / ".htaccess").write_text("RewriteEngin On\n")
    assert run("lint", "--no-cache", str(tmp_path)).exit_code == 0


def test_rules_and_rule() -> None:
    res = run("rules")
    assert res.exit_code == 0 and "SYN003" in res.output and "CTX002" in res.output
    data = json.loads(run("rules", "--format", "json").stdout)
    assert {"code", "name", "severity", "summary", "rationale", "bad", "good"} <= set(data[0])
    res = run("rule", "ctx002")
    assert res.exit_code == 0
    assert "forbidden-by-allowoverride" in res.output and "Bad:" in res.output
    assert "RewriteEngine On" in res.output
    res = run("rule", "NOPE999")
    assert res.exit_code == 2 and "unknown rule" in res.output
