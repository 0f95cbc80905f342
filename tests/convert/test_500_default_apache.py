"""Where Apache answers 500 for an ``.htaccess``, the converted configuration answers 500 too —
by default.  Serving those requests is an explicit, announced choice (``--serve-500``).

Each case runs on real Apache: the original (the ``.htaccess`` tree under its AllowOverride)
and the converted configuration (the files out of reach), same requests, same statuses.
Directives Apache merely ignores (``Nonfatal=Override``) stay comments and are served.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert import Options, convert_config
from confmig.convert.httpd.render import KEEP_500_LINES, KEEP_500_REQUIRE
from confmig.convert.result import NoteKind
from confmig.servers import find_apache, http_get, make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.session import prepare

pytestmark = pytest.mark.apache

#: directory -> (.htaccess, what Apache answers for it and below)
CASES: dict[str, tuple[str, int]] = {
    # mod_rewrite is not loaded: "Invalid command 'RewriteEngine'"
    "norewrite": ("RewriteEngine On\nRewriteRule ^ - [F]\n", 500),
    # AllowOverride FileInfo: "Options not allowed here"
    "forbidden": ("Header set X-Forbidden 1\nOptions -Indexes\n", 500),
    # an unknown variable: the expression does not parse
    "expr": ("<If \"%{NO_SUCH_VARIABLE} == 'x'\">\n    Header set X-Expr 1\n</If>\n", 500),
    # functions Apache refuses only in an .htaccess ("not available in restricted context"),
    # which a <Directory> block would evaluate
    "restricted": ("Require expr \"file('/etc/hostname') != 'x'\"\n", 500),
    "restricted-if": ("<If \"filesize('/etc/hostname') -gt 0\">\n    Header set X-F 1\n"
                      "</If>\n", 500),
    # a section left open: the file does not parse at all
    "unclosed": ("<Files page.html>\nHeader set X-Unclosed 1\n", 500),
    # never read: its parent answered 500 first
    "forbidden/child": ("Header set X-Child 1\n", 500),
    # Nonfatal=Override: Apache logs it and goes on without Options
    "ignored": ("Header set X-Ignored 1\nOptions -Indexes\n", 200),
    "fine": ("Header set X-Fine 1\n", 200),
    # Nonfatal=Override alone still has Apache read the file (request.c: opts.override is
    # not 0): what no class allows is skipped, an unknown directive is still a 500
    "nonfatal-alone": ("Bogus directive\n", 500),
    "nonfatal-skips": ("Header set X-Skipped 1\nRequire all denied\n", 200),
}
SECTIONS = {"forbidden": "AllowOverride FileInfo",
            "ignored": "AllowOverride FileInfo Nonfatal=Override",
            "nonfatal-alone": "AllowOverride Nonfatal=Override",
            "nonfatal-skips": "AllowOverride Nonfatal=Override"}
#: Server sections that authorize some of the same URLs themselves: merged after every
#: <Directory>, they would replace a kept 500 made of a plain Require.
LOCATIONS = ("    <Location /forbidden>\n        Require all granted\n    </Location>\n"
             "    <LocationMatch \"^/norewrite\">\n        Require all granted\n"
             "    </LocationMatch>\n")
FATAL = [d for d, (_, status) in CASES.items() if status == 500 and "/" not in d]


@pytest.fixture
def site(apache_binary: object) -> Iterator[tuple[Path, Path]]:
    files: dict[str, str | bytes] = {"page.html": "top\n"}
    for directory, (text, _status) in CASES.items():
        files[f"{directory}/.htaccess"] = text
        files[f"{directory}/page.html"] = f"page in {directory}\n"
        files[f"{directory}/deep/page.html"] = f"deep in {directory}\n"
    root = make_docroot(prefix="confmig-500-", files=files)
    sections = "".join(f"    <Directory {root}/{d}>\n        {words}\n    </Directory>\n"
                       for d, words in SECTIONS.items())
    config = root.parent / f"{root.name}.conf"
    config.write_text(
        "LoadModule headers_module modules/mod_headers.so\nServerName t500.test\n"
        "<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n"
        f"<VirtualHost *:80>\n    ServerName t500.test\n    DocumentRoot {root}\n"
        f"    <Directory {root}>\n        AllowOverride All\n        Require all granted\n"
        f"    </Directory>\n{sections}{LOCATIONS}</VirtualHost>\n")
    yield root, config
    shutil.rmtree(root, ignore_errors=True)
    config.unlink(missing_ok=True)


def statuses(config: Path, *, keep_500: bool) -> dict[str, tuple[int, int]]:
    """(original, converted) status of each case's directory, file, subdirectory and miss."""
    setup = prepare(VerifyRequest(config=config, keep_500=keep_500), find_apache())
    out = {}
    with setup.original as original, setup.converted as converted:
        for directory in CASES:
            for path in (f"/{directory}/", f"/{directory}", f"/{directory}/page.html",
                         f"/{directory}/deep/page.html", f"/{directory}/missing"):
                out[path] = (http_get(original.base_url, path).status,
                             http_get(converted.base_url, path).status)
    return out


def test_by_default_every_case_answers_what_apache_answered(site: tuple[Path, Path]) -> None:
    _root, config = site
    got = statuses(config, keep_500=True)
    for directory, (_text, expected) in CASES.items():
        page = got[f"/{directory}/page.html"]
        assert page == (expected, expected), (directory, page)
    assert {p: s for p, s in got.items() if s[0] != s[1]} == {}


def test_by_default_verify_finds_no_difference_at_all(site: tuple[Path, Path]) -> None:
    _root, config = site
    report = verify(VerifyRequest(config=config))
    assert report.differing == [], report.summary()
    assert report.statuses[500] > 0 and report.statuses[200] > 0
    assert report.exit_code == 0


def test_the_default_keeps_the_500_and_says_so(site: tuple[Path, Path]) -> None:
    root, config = site
    result = convert_config(config, options=Options())
    assert result.untranslatable == []
    for directory in FATAL:
        block = result.text.split(f"<Directory \"{root}/{directory}\">", 1)[1]
        body = block.split("</Directory>", 1)[0]
        assert all(line in body for line in KEEP_500_LINES), directory
    kept = [n for n in result.warnings if "kept as 500" in n.reason]
    assert {Path(n.file).parent.name for n in kept} == set(FATAL)
    ignored = [n for n in result.warnings if n.kind is NoteKind.IGNORED]
    assert sorted((Path(n.file).parent.name, n.directive) for n in ignored) == [
        ("ignored", "Options"), ("nonfatal-skips", "Header"), ("nonfatal-skips", "Require")]


def test_serving_is_an_announced_choice(site: tuple[Path, Path]) -> None:
    _root, config = site
    got = statuses(config, keep_500=False)
    assert got["/forbidden/page.html"] == (500, 200)
    assert got["/norewrite/page.html"] == (500, 200)
    report = verify(VerifyRequest(config=config, keep_500=False))
    assert report.exit_code == 0 and report.announced and not report.unannounced
    served = convert_config(config, options=Options(keep_500=False))
    assert {Path(n.file).parent.name for n in served.untranslatable} >= set(FATAL)
    assert all("--serve-500" in n.reason for n in served.untranslatable
               if n.kind is NoteKind.FATAL)


def test_command_line_flags(site: tuple[Path, Path]) -> None:
    _root, config = site
    runner = CliRunner()
    default = runner.invoke(app, ["convert", "--to", "httpd", "--config", str(config)])
    alias = runner.invoke(app, ["convert", "--to", "httpd", "--config", str(config),
                                "--keep-500"])
    assert default.exit_code == alias.exit_code == 0, default.stderr
    assert default.stdout == alias.stdout and KEEP_500_REQUIRE in default.stdout
    served = runner.invoke(app, ["convert", "--to", "httpd", "--config", str(config),
                                 "--serve-500"])
    assert served.exit_code == 1
    assert KEEP_500_REQUIRE not in served.stdout
    assert "untranslatable:" in served.stderr and "--serve-500" in served.stderr
    helptext = " ".join(runner.invoke(app, ["convert", "--help"]).stdout.split())
    assert "--serve-500" in helptext and "--keep-500" in helptext
    checked = runner.invoke(app, ["verify", "--to", "httpd", "--config", str(config),
                                  "--serve-500", "--max-requests", "40"])
    assert checked.exit_code == 0, checked.stdout
