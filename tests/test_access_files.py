"""Access files Apache cannot read as one (a directory, FIFO, unreadable file) and files outside
the root: the docroot walk, the model (explain), lint and parse agree, and none of them reads
outside the root or blocks on a FIFO (issue 10).  What Apache does with each is checked on a
real server in tests/test_access_files_apache.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.load import load_path, scan_docroot
from confmig.load.accessfile import AccessState, check_access_file
from confmig.model.explain import explain_request

runner = CliRunner()
SECRET = "very-secret-line-42"
TIMEOUT = 60  # a FIFO read would block forever: the subprocess tests fail instead of hanging


def confmig(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real command line in a subprocess (a hang becomes a test failure)."""
    return subprocess.run([sys.executable, "-m", "confmig", *args], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=cwd, check=False)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """site/up/.htaccess → a file outside the root; site/x → /; site/ok/.htaccess regular."""
    root = tmp_path / "site"
    (root / "up").mkdir(parents=True)
    (root / "ok").mkdir()
    (root / "ok" / ".htaccess").write_text("Options -Indexes\n")
    (root / "up" / "f.txt").write_text("x\n")
    outside = tmp_path / "outside.txt"
    outside.write_text(f"{SECRET}\n")
    os.symlink(outside, root / "up" / ".htaccess")
    os.symlink("/", root / "x")
    return root


# -- the one rule: check_access_file ------------------------------------------------------

def test_check_access_file_classifies_what_apache_opens(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "file").write_text("x\n")
    os.symlink(tmp_path / "nothing", tmp_path / "dangling")
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    os.symlink("/etc/hostname", tmp_path / "out")
    os.symlink("/proc/self/environ", tmp_path / "proc")
    roots = [str(tmp_path)]
    state = {name: check_access_file(str(tmp_path / name), roots).state
             for name in ("dir", "fifo", "file", "dangling", "loop", "out", "proc", "none")}
    assert state == {
        "dir": AccessState.NOT_REGULAR, "fifo": AccessState.FIFO, "file": AccessState.REGULAR,
        "dangling": AccessState.ABSENT, "loop": AccessState.UNREADABLE,
        "out": AccessState.OUTSIDE_ROOT, "proc": AccessState.SPECIAL,
        "none": AccessState.ABSENT,
    }
    followed = check_access_file(str(tmp_path / "out"), roots, follow_symlinks=True)
    assert followed.state is AccessState.REGULAR
    assert check_access_file(str(tmp_path / "proc"), roots, True).state is AccessState.SPECIAL


# -- the walk ------------------------------------------------------------------------------

def test_walk_does_not_read_a_symlinked_htaccess_outside_the_root(site: Path) -> None:
    scan = scan_docroot(site)
    assert [p.relative_to(site).as_posix() for p in scan.access_files] == ["ok/.htaccess"]
    [problem] = scan.problems
    assert problem.path == str(site / "up" / ".htaccess")
    assert problem.state is AccessState.OUTSIDE_ROOT
    assert site / "x" in scan.outside_links
    assert scan.directories == 3  # site, ok, up: not / through x


def test_follow_symlinks_walks_links_but_never_proc_sys_dev_nor_loops(tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "a").mkdir(parents=True)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / ".htaccess").write_text("Options -Indexes\n")
    os.symlink(shared, root / "a" / "shared")
    os.symlink(root, root / "a" / "up")  # a loop back to the root
    os.symlink("/proc", root / "proc")
    os.symlink("/dev", root / "dev")
    scan = scan_docroot(root, follow_symlinks=True)
    assert scan.access_files == [root / "a" / "shared" / ".htaccess"]
    reasons = {p.name: r for p, r in scan.skipped}
    assert "loop" in reasons["up"]
    assert "/proc" in reasons["proc"] and "never" in reasons["proc"]
    assert "never" in reasons["dev"]
    assert scan.directories == 3  # site, a, a/shared


def test_non_regular_access_files_are_problems_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "d" / ".htaccess").mkdir(parents=True)
    (tmp_path / "d" / ".htaccess" / ".htaccess").write_text("Options -Indexes\n")
    (tmp_path / "f").mkdir()
    os.mkfifo(tmp_path / "f" / ".htaccess")
    scan = scan_docroot(tmp_path)
    states = {Path(c.path).parent.name: c.state for c in scan.problems}
    assert states == {"d": AccessState.NOT_REGULAR, "f": AccessState.FIFO}
    assert scan.access_files == []  # nothing below the 403'd directory named .htaccess


# -- commands ------------------------------------------------------------------------------

def test_lint_parse_and_explain_never_print_a_file_outside_the_root(site: Path) -> None:
    lint = confmig("lint", str(site), "--no-cache", "--no-config")
    assert SECRET not in lint.stdout + lint.stderr
    assert lint.returncode == 1 and "CTX009" in lint.stdout
    assert "outside the root" in lint.stdout and "--follow-symlinks" in lint.stdout
    for fmt in ("tree", "json"):
        parse = confmig("parse", str(site), "--format", fmt, "--no-config")
        assert SECRET not in parse.stdout + parse.stderr
        assert "outside the root" in parse.stderr
    [not_read] = json.loads(parse.stdout)["docroot"]["not_read"]
    assert not_read["path"] == str(site / "up" / ".htaccess")
    assert not_read["state"] == "outside-root"
    named = site / "up" / ".htaccess"
    for command in ("lint", "parse"):
        alone = confmig(command, str(named), "--no-config")
        assert SECRET not in alone.stdout + alone.stderr
        assert "outside the root" in alone.stdout + alone.stderr
    explain = confmig("explain", "/up/f.txt", "--root", str(site), "--no-config")
    assert SECRET not in explain.stdout + explain.stderr
    assert "403" in explain.stdout and "--follow-symlinks" in explain.stdout


def test_follow_symlinks_reads_it_when_asked(site: Path) -> None:
    (site / "x").unlink()  # not the whole machine: the walk would follow it to /
    lint = confmig("lint", str(site), "--no-cache", "--no-config", "--follow-symlinks")
    assert SECRET in lint.stdout  # read as Apache reads it: an unknown directive (SYN003)
    assert "SYN003" in lint.stdout and "CTX009" not in lint.stdout
    answer = explain_request("/up/f.txt", root=site, follow_symlinks=True)
    assert answer.status == 500  # Apache: Invalid command 'very-secret-line-42'


def test_lint_reports_a_directory_named_htaccess(tmp_path: Path) -> None:
    (tmp_path / "d" / ".htaccess").mkdir(parents=True)
    result = confmig("lint", str(tmp_path), "--no-cache", "--no-config", "--format", "json")
    assert result.returncode == 1, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [(f["code"], f["severity"]) for f in findings] == [("CTX009", "error")]
    assert "403" in findings[0]["message"]


def test_lint_and_explain_do_not_block_on_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "x.txt").write_text("x\n")
    os.mkfifo(tmp_path / "f" / ".htaccess")
    result = confmig("lint", str(tmp_path), "--no-cache", "--no-config")
    assert result.returncode == 1 and "CTX009" in result.stdout
    assert "hangs" in result.stdout
    answer = explain_request("/f/x.txt", root=tmp_path)
    assert answer.status == 403  # Apache hangs; denied is the safe answer


def test_a_fifo_named_on_the_command_line_is_not_called_missing(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".htaccess")
    for command in ("lint", "parse"):
        result = confmig(command, str(tmp_path / ".htaccess"), "--no-config")
        assert result.returncode == 2
        assert "not a regular file (a FIFO)" in result.stderr
        assert "no such file" not in result.stdout + result.stderr


def test_explain_agrees_with_the_walk_on_a_directory_named_htaccess(tmp_path: Path) -> None:
    (tmp_path / "d" / ".htaccess").mkdir(parents=True)
    (tmp_path / "d" / "x.txt").write_text("x\n")
    assert explain_request("/d/x.txt", root=tmp_path).status == 403
    assert explain_request("/x.txt", root=tmp_path).status == 404  # only below it
    ws = load_path(tmp_path)
    assert ws.notes and "403" in ws.notes[0]


# -- smaller CLI items ---------------------------------------------------------------------

def test_lint_input_errors_go_to_stderr(tmp_path: Path) -> None:
    (tmp_path / "a.conf").write_text("Listen 80\n")
    os.mkfifo(tmp_path / "pipe.conf")
    result = confmig("lint", str(tmp_path / "a.conf"), str(tmp_path / "pipe.conf"),
                     "--no-cache", "--no-config")
    assert result.returncode == 2
    assert f"error: {tmp_path / 'pipe.conf'}: not a regular file" in result.stderr
    assert "error:" not in result.stdout and "pipe.conf" not in result.stdout


def test_parse_names_the_file_alone_not_line_zero(tmp_path: Path) -> None:
    unreadable = tmp_path / "site.htaccess"
    unreadable.mkdir()  # a directory: "cannot read"
    result = confmig("parse", str(tmp_path / "x.htaccess"), "--no-config")
    assert ":0:0" not in result.stdout + result.stderr
    os.mkfifo(tmp_path / "fifo.htaccess")
    result = confmig("parse", str(tmp_path / "fifo.htaccess"), "--no-config")
    assert ":0:0" not in result.stdout + result.stderr
    assert f"{tmp_path / 'fifo.htaccess'}: not a regular file" in result.stderr


def test_select_with_no_code_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text("RewriteRule ^(.*$ x\n")
    for value in ("", " , "):
        result = runner.invoke(app, ["lint", str(tmp_path), "--select", value, "--no-cache",
                                     "--no-config"])
        assert result.exit_code == 2, result.output
        assert "--select" in result.output


def test_sarif_uris_are_percent_encoded(tmp_path: Path) -> None:
    from confmig.lint.reporters.sarif import _uri

    assert _uri("site/a b\n/.htaccess") == "site/a%20b%0A/.htaccess"
    assert _uri("a:b/.htaccess") == "a%3Ab/.htaccess"  # not a scheme
    assert _uri("s/\udcff/.htaccess") == "s/%FF/.htaccess"  # the file name's own byte
    assert _uri("s/\ud800") == "s/%ED%A0%80"
    assert _uri("/tmp/é x") == "file:///tmp/%C3%A9%20x"
    odd = tmp_path / "we\nird"
    odd.mkdir()
    (odd / ".htaccess").write_text("RewriteRule ^(.*$ x\n")
    result = confmig("lint", str(odd), "--format", "sarif", "--no-cache", "--no-config")
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(result.stdout)["runs"][0]["results"]
            for loc in r["locations"]]
    assert uris and all("\n" not in u and "%0A" in u for u in uris)


def test_convert_stays_in_the_root_and_denies_what_it_did_not_read(site: Path) -> None:
    result = confmig("convert", "--to", "httpd", str(site))
    assert result.returncode == 1, result.stderr  # not carried over faithfully: said so
    assert SECRET not in result.stdout + result.stderr
    assert "Permission denied" not in result.stderr  # ln -s / x: / is not walked (no /proc)
    blocks = result.stdout.split("<Directory ")
    up = next(b for b in blocks if b.startswith(f'"{site / "up"}"'))
    x = next(b for b in blocks if b.startswith(f'"{site / "x"}"'))
    assert "Require all denied" in up and "Require all denied" in x
    assert "outside the root" in result.stderr and "--follow-symlinks" in result.stderr
    (site / "x").unlink()
    followed = confmig("convert", "--to", "httpd", str(site), "--follow-symlinks")
    assert SECRET in followed.stdout  # asked for: read as Apache reads it


def test_whole_file_findings_have_no_line_in_sarif_and_github(tmp_path: Path) -> None:
    (tmp_path / "d" / ".htaccess").mkdir(parents=True)
    sarif = confmig("lint", str(tmp_path), "--format", "sarif", "--no-cache", "--no-config")
    [found] = json.loads(sarif.stdout)["runs"][0]["results"]
    assert found["ruleId"] == "CTX009"
    assert "region" not in found["locations"][0]["physicalLocation"]
    github = confmig("lint", str(tmp_path), "--format", "github", "--no-cache", "--no-config")
    [line] = [x for x in github.stdout.splitlines() if "CTX009" in x]
    assert "line=" not in line and line.startswith("::error file=")
