"""explain --requests: access logs and URL lists through the model, JSON Lines and the
summary, bad lines counted with their numbers and never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.replay.logs import BadLine, LoggedRequest, parse_line, read_requests

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo-site"
LOG = """\
127.0.0.1 - - [26/Nov/2026:07:00:00 +0000] "GET /blog/some/post HTTP/1.1" 200 1 "-" "curl/8"
127.0.0.1 - - [26/Nov/2026:07:00:01 +0000] "GET /blog/some/post HTTP/1.1" 200 1 "-" "curl/8"
example.com:80 127.0.0.1 - - [26/Nov/2026:07:00:02 +0000] "GET /old/contact.html HTTP/1.1" 301 0
this is not a log line
/index.html
POST /blog/x?y=1
127.0.0.1 - - [26/Nov/2026:07:00:02 +0000] "GET /private/secret.txt HTTP/1.1" 403 10
127.0.0.1 - - [26/Nov/2026:07:00:02 +0000] "BROKEN" 400 10
"""


def test_log_formats() -> None:
    combined = parse_line(1, '1.2.3.4 - bob [26/Nov/2026:07:00:00 +0000] "HEAD /a?b=1 '
                             'HTTP/1.0" 200 5 "http://r/" "UA \\"quoted\\""')
    assert combined == LoggedRequest(1, "HEAD", "/a?b=1", (("User-Agent", 'UA "quoted"'),
                                                           ("Referer", "http://r/")))
    common = parse_line(2, '::1 - - [26/Nov/2026:07:00:00 +0000] "GET / HTTP/1.1" 404 -')
    assert common == LoggedRequest(2, "GET", "/", ())
    vhost = parse_line(3, 'Example.ORG:443 1.2.3.4 - - [x] "GET /p HTTP/2.0" 200 1 "-" "-"')
    assert vhost == LoggedRequest(3, "GET", "/p", (("Host", "Example.ORG"),))
    assert parse_line(4, "https://h/x") == LoggedRequest(4, "GET", "https://h/x", ())
    assert parse_line(5, "DELETE /x") == LoggedRequest(5, "DELETE", "/x", ())
    assert isinstance(parse_line(6, "GET"), BadLine)
    assert isinstance(parse_line(7, "a b c d"), BadLine)
    assert isinstance(parse_line(8, "ftp://x/"), BadLine)


def test_binary_and_huge_lines_are_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_bytes(b"\x00\xff\xfe garbage\n" + b"/" + b"a" * 70_000 + b"\n/ok\n")
    items = list(read_requests(path))
    assert [type(i) for i in items] == [BadLine, BadLine, LoggedRequest]
    assert [i.line for i in items] == [1, 2, 3]


def test_json_lines_and_summary(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text(LOG)
    result = CliRunner().invoke(app, ["explain", "--requests", str(log), "--root", str(DEMO),
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    by_line = {r["line"]: r for r in records if "line" in r}
    assert by_line[1]["status"] == 200 and by_line[1]["file"] == "blog/index.html"
    assert by_line[1]["decided_by"].endswith("blog/.htaccess:8")
    assert by_line[2] == {**by_line[1], "line": 2}
    assert by_line[3]["status"] == 301 and by_line[3]["location"].endswith("/contact.html")
    assert by_line[3]["decided_by"].endswith("old/.htaccess:1")
    assert by_line[7]["status"] == 403 and by_line[7]["decided_by"].endswith(
        "private/.htaccess:3")
    assert "error" in by_line[4] and "error" in by_line[8]
    summary = records[-1]["summary"]
    assert summary["requests"] == 6 and summary["distinct"] == 5
    assert [b["line"] for b in summary["bad_lines"]] == [4, 8]
    never = {(Path(n["file"]).parent.name, n["line"]) for n in summary["never_fired"]}
    assert ("old", 2) in never and ("old", 1) not in never and ("blog", 8) not in never
    assert f"{log}:4: not evaluated" in result.stderr


def test_replay_answers_as_explain_does(tmp_path: Path) -> None:
    urls = ["/", "/blog/a/b", "/old/x.htm", "/private/secret.txt", "/.git/config",
            "/uploads/x.php", "/contact.html?x=1"]
    log = tmp_path / "urls"
    log.write_text("\n".join(urls) + "\n")
    result = CliRunner().invoke(app, ["explain", "--requests", str(log), "--root", str(DEMO),
                                      "--format", "json"])
    replayed = [json.loads(line) for line in result.stdout.splitlines()[:-1]]
    for url, record in zip(urls, replayed, strict=True):
        single = CliRunner().invoke(app, ["explain", url, "--root", str(DEMO), "--format",
                                          "json"])
        answer = json.loads(single.stdout)
        assert (record["status"], record["location"], record["file"]) == (
            answer["status"], answer["location"], answer["file"]), url


def test_text_summary_and_usage_errors(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text(LOG)
    result = CliRunner().invoke(app, ["explain", "--requests", str(log), "--root", str(DEMO)])
    assert result.exit_code == 0
    assert "6 requests" in result.stdout and "Never fired on this traffic" in result.stdout
    for args in (["explain", "--root", str(DEMO)],
                 ["explain", "/x", "--requests", str(log), "--root", str(DEMO)],
                 ["explain", "--requests", str(tmp_path), "--root", str(DEMO)]):
        bad = CliRunner().invoke(app, args)
        assert bad.exit_code == 2
        assert bad.exception is None or isinstance(bad.exception, SystemExit)


@pytest.mark.parametrize("lines", [0, 1])
def test_empty_logs(tmp_path: Path, lines: int) -> None:
    log = tmp_path / "empty"
    log.write_text("# comment\n" * lines)
    result = CliRunner().invoke(app, ["explain", "--requests", str(log), "--root", str(DEMO),
                                      "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout.splitlines()[-1])["summary"]["requests"] == 0
