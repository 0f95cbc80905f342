"""Fuzz: random bytes, random nesting and random URLs never give a traceback.

The parser must collect every problem as an error with file:line; every command must end with
exit 0, 1 or 2 and a message, never an exception. Each test runs a bounded number of examples
with no per-example deadline, so the whole file stays within a few seconds of CI time.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from confmig.cli import app
from confmig.syntax import parse_text
from confmig.syntax.ast import ReadLimitError
from confmig.syntax.parser import decode

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
WORDS = st.sampled_from([
    "RewriteEngine On", "RewriteRule ^(.*)$ /x/$1 [L]", "RewriteCond %{REQUEST_FILENAME} !-f",
    "Require all denied", "Options -Indexes", "<IfModule mod_rewrite.c>", "</IfModule>",
    "<Files \"a\">", "</Files>", "<If \"%{HTTP_HOST} == 'x'\">", "</If>", "Header set X y",
    "Define X ${X}${X}", "\\", "#", "\x00", "\r", "\xe9", "<", ">", "\"", "'", "RedirectMatch ",
    "ErrorDocument 404 ", "SetEnvIf Host (a+)+$ X", "<FilesMatch (a+)+$>", "</FilesMatch>",
])


def assert_clean(result: Result, where: str) -> None:
    """Exit 0, 1 or 2 and no exception — but ReadLimitError, which confmig.cli.main turns into
    a one-line file:line error and exit 2 (CliRunner calls the app without main)."""
    exception = result.exception
    assert exception is None or isinstance(exception, SystemExit | ReadLimitError), \
        f"{where}: {type(exception).__name__}: {exception}"
    if not isinstance(exception, ReadLimitError):
        assert result.exit_code in (0, 1, 2), where


@FUZZ
@given(st.binary(max_size=2000))
def test_parser_takes_any_bytes(data: bytes) -> None:
    result = parse_text(decode(data), "fuzz.conf")
    for error in result.errors:
        assert error.line >= 1, error


@FUZZ
@given(st.lists(WORDS, max_size=40), st.integers(min_value=0, max_value=3000))
def test_parser_takes_any_line_soup_and_nesting(lines: list[str], depth: int) -> None:
    text = "<IfModule x>\n" * depth + "\n".join(lines) + "\n" + "</IfModule>\n" * depth
    try:
        parse_text(text, "fuzz.conf")
    except ReadLimitError as exc:  # confmig's nesting cap: an error with file:line
        assert str(exc).startswith("fuzz.conf:")


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=600), nesting=st.integers(min_value=0, max_value=1500))
def test_every_command_takes_any_htaccess(data: bytes, nesting: int, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "index.html").write_text("hi\n")
    (site / ".htaccess").write_bytes(b"<IfModule x>\n" * nesting + data
                                     + b"\n</IfModule>" * nesting)
    runner = CliRunner()
    for args in (["parse", str(site)], ["parse", "--format", "json", str(site)],
                 ["lint", "--no-cache", str(site)], ["convert", "--to", "httpd", str(site)],
                 ["explain", "/index.html", "--root", str(site)]):
        assert_clean(runner.invoke(app, args), " ".join(args[:2]))


URL_CHARS = st.lists(st.sampled_from(
    [*"/aZ09.%?#&=:@[]+~-_ \\", "%00", "%2e", "%2f", "%0d%0a", "\x00", "\r\n", "é", "\udcff"]),
    max_size=80).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.one_of(URL_CHARS, st.builds(lambda a, b: a + b,
                                      st.sampled_from(["http://", "https://", "http://[", "/",
                                                       "ftp://", "//", "http://h:99999"]),
                                      URL_CHARS)),
       st.lists(st.text(max_size=40), max_size=3))
def test_explain_takes_any_url_and_header(url: str, headers: list[str]) -> None:
    site = Path(__file__).resolve().parents[2] / "fixtures" / "demo-site"
    args = ["explain", url, "--root", str(site)]
    for header in headers:
        args += ["-H", header]
    assert_clean(CliRunner().invoke(app, ["--", *args] if url.startswith("-") else args), url)


def test_the_entry_point_turns_confmigs_limits_into_one_line(tmp_path: Path) -> None:
    """What CliRunner cannot show: ``confmig`` itself (its main) on nesting over the cap."""
    import subprocess
    import sys

    (tmp_path / ".htaccess").write_text("<IfModule x>\n" * 400 + "</IfModule>\n" * 400)
    run = subprocess.run([sys.executable, "-m", "confmig", "parse", str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and ".htaccess:" in lines[0], run.stderr
