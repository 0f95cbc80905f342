"""Output formats: text code frame and summary, JSON schema, SARIF 2.1.0, GitHub commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from confmig import __version__
from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths
from confmig.lint.reporters import render


@pytest.fixture
def result(tmp_path: Path) -> LintResult:
    (tmp_path / ".htaccess").write_text("Options -Indexes\n\tRewriteEngin On\nServerName x\n")
    return lint_paths([tmp_path], settings=Settings(cache=False))


def test_text_has_a_code_frame_and_a_summary(result: LintResult) -> None:
    text = render(result, "text")
    assert "note: no --config: assuming Debian's defaults" in text
    assert ".htaccess:2:2: SYN003 error: Invalid command 'RewriteEngin'" in text
    assert " 2 |     RewriteEngin On\n   |     ^\n" in text  # tab expanded, caret under it
    assert "= hint: did you mean RewriteEngine?" in text
    assert "Found 2 findings (2 errors) in 1 file." in text
    assert "CTX001  directive-not-allowed-in-htaccess" in text


def test_text_clean_run(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text("Options -Indexes\n")
    text = render(lint_paths([tmp_path], settings=Settings(cache=False)), "text")
    assert "No issues found in 1 file." in text


def test_json_schema(result: LintResult) -> None:
    data = json.loads(render(result, "json"))
    assert data["version"] == __version__ and data["schema"] == 1
    assert data["files_checked"] == 1 and data["exit_code"] == 1
    first = data["findings"][0]
    assert set(first) == {"code", "name", "message", "severity", "file", "line", "column",
                          "end_column", "hint"}
    assert (first["code"], first["line"], first["column"]) == ("SYN003", 2, 2)
    assert data["summary"]["by_code"] == {"CTX001": 1, "SYN003": 1}
    assert data["summary"]["by_severity"] == {"error": 2, "warning": 0, "info": 0}


def test_sarif(result: LintResult) -> None:
    log = json.loads(render(result, "sarif"))
    assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert "SYN003" in ids and "CTX001" in ids
    syn003 = rules[ids.index("SYN003")]
    assert syn003["name"] == "unknown-directive"
    assert syn003["fullDescription"]["text"].startswith("Apache rejects")
    assert "RewriteEngin On" in syn003["help"]["text"]
    res = run["results"][0]
    assert res["ruleId"] == "SYN003" and ids[res["ruleIndex"]] == "SYN003"
    assert res["level"] == "error"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("/.htaccess")
    assert loc["region"] == {"startLine": 2, "startColumn": 2}


def test_github(result: LintResult) -> None:
    lines = render(result, "github").splitlines()
    assert lines[0].startswith("::error file=")
    assert ",line=2,col=2,title=SYN003::Invalid command 'RewriteEngin'" in lines[0]
    assert lines[0].endswith("(did you mean RewriteEngine?)")
