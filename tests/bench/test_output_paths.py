"""``bench --json/--html`` are checked before any work starts (issue 10): a directory, a
missing parent or a non-regular file used to fail only after the whole run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.bench.options import BenchUsageError
from confmig.cli import app
from tests.bench.test_options import cli


def bad_outputs(tmp_path: Path) -> list[tuple[str, Path, str]]:
    (tmp_path / "a-file").write_text("x\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return [
        ("--json", tmp_path, "is a directory"),
        ("--html", tmp_path, "is a directory"),
        ("--json", tmp_path / "missing" / "r.json", "does not exist"),
        ("--html", tmp_path / "a-file" / "r.html", "is not a directory"),
        ("--json", fifo, "not a regular file"),
    ]


def test_bad_output_paths_are_refused_by_the_options(tmp_path: Path) -> None:
    for option, path, reason in bad_outputs(tmp_path):
        key = "json_path" if option == "--json" else "html_path"
        with pytest.raises(BenchUsageError) as caught:
            cli(**{key: path})
        assert str(caught.value).startswith(f"{option} {path}") and reason in str(caught.value)


def test_json_and_html_into_the_same_file_is_refused(tmp_path: Path) -> None:
    same = tmp_path / "report"
    with pytest.raises(BenchUsageError, match="same file"):
        cli(json_path=same, html_path=tmp_path / "." / "report")


def test_an_existing_report_is_replaced_as_before(tmp_path: Path) -> None:
    """The bench convention: re-running regenerates bench/results/*.json in place."""
    old = tmp_path / "r.json"
    old.write_text("{}\n")
    assert cli(json_path=old).json_path == old


def test_the_command_fails_before_any_work(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    monkeypatch.setattr("confmig.bench.run_bench", lambda *a, **k: started.append(a))
    for option, path, reason in bad_outputs(tmp_path):
        result = CliRunner().invoke(app, ["bench", "--depth", "1", "--requests", "10",
                                          "--repeat", "1", option, str(path)])
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.strip().splitlines()
        assert str(path) in line and reason in line
    assert started == []

