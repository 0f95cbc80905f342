"""explain --requests FILE --against TARGET: which requests of the file would answer
differently after ``convert --to TARGET`` — the same requests sent to the original Apache and
to the converted site on real servers, compared as ``verify --requests`` compares them
(issue 17)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.servers import make_docroot
from confmig.verify.logprobes import log_probes, split_url

pytestmark = pytest.mark.apache

LOG = """\
127.0.0.1 - - [26/Nov/2026:07:00:00 +0000] "GET /ok/f.txt HTTP/1.1" 200 2 "-" "curl/8"
/denied/f.txt
this is not a request
http://example.com:8080/ok/f.txt?x=1
/denied/f.txt
"""


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A docroot whose denied/ has a directory named .htaccess: Apache answers 403 with an
    error note no directive writes, so the converted 403 page differs (announced)."""
    root = make_docroot(prefix="confmig-against-", files={"ok/f.txt": "ok\n",
                                                          "denied/f.txt": "no\n"})
    (root / "denied" / ".htaccess").mkdir()
    (root / "denied" / ".htaccess").chmod(0o755)
    log = tmp_path / "access.log"
    log.write_text(LOG)
    yield root, log
    shutil.rmtree(root, ignore_errors=True)


def explain(*args: str):
    return CliRunner().invoke(app, ["explain", "--no-config", *args])


def test_log_lines_become_verify_probes(site: tuple[Path, Path]) -> None:
    _, log = site
    probes = log_probes(log, None)
    assert [(p.why, p.method, p.path, p.headers) for p in probes] == [
        ("access.log:1", "GET", "/ok/f.txt", (("User-Agent", "curl/8"),)),
        ("access.log:2", "GET", "/denied/f.txt", ()),
        ("access.log:4", "GET", "/ok/f.txt?x=1", (("Host", "example.com:8080"),)),
        ("access.log:5", "GET", "/denied/f.txt", ()),
    ]
    assert split_url("ftp://x/") is None and split_url("https://u@h") == ("/", "h")


def test_json_says_which_requests_differ(site: tuple[Path, Path], apache_binary: object
                                         ) -> None:
    root, log = site
    result = explain("--requests", str(log), "--root", str(root), "--against", "httpd",
                     "--format", "json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])["summary"]
    after = summary["after_convert"]
    assert after["target"] == "httpd" and after["complete"]
    assert after["planned"] == 3 and after["compared"] == 3  # line 5 repeats line 2
    assert [d["where"] for d in after["differ"]] == ["access.log:2"]
    assert after["differ"][0]["announced"] is True
    assert summary["bad_lines"] == [{"line": 3, "why": summary["bad_lines"][0]["why"]}]


def test_text_summary_and_usage(site: tuple[Path, Path], apache_binary: object) -> None:
    root, log = site
    result = explain("--requests", str(log), "--root", str(root), "--against", "httpd")
    assert result.exit_code == 0, result.output
    assert "After convert --to httpd: 1 of 3 compared request(s) would answer differently" \
        in " ".join(result.stdout.split())
    assert "access.log:2" in result.stdout
    without = explain("--requests", str(log), "--root", str(root))
    assert "After convert" not in without.stdout
    alone = explain("/ok/f.txt", "--root", str(root), "--against", "httpd")
    assert alone.exit_code == 2 and "--against needs --requests" in alone.stderr
    unknown = explain("--requests", str(log), "--root", str(root), "--against", "iis")
    assert unknown.exit_code == 2 and "--against iis" in unknown.stderr
