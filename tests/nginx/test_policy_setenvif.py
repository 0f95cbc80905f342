"""SetEnvIf feeding ``Header … env=VAR`` (issue 12; h5bp's CORS header for images): when one
``SetEnvIf``/``SetEnvIfNoCase`` on a request header alone sets VAR, nginx gets a ``map`` on
that header and the header is sent exactly where Apache sends it; anything else stays
announced.  Real Apache against real nginx, with the header absent, matching and not."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.plan import plan_docroot
from confmig.verify import VerifyRequest, verify
from tests.corpus import CORPUS, needs_corpus
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

HTACCESS = """\
<FilesMatch "\\.(gif|png)$">
    SetEnvIf Origin ":" IS_CORS
    Header set Access-Control-Allow-Origin "*" env=IS_CORS
</FilesMatch>
SetEnvIfNoCase X-Mode ^(DEBUG|trace)$ NOISY
Header always set X-Noisy "yes" env=NOISY
Header set X-Quiet "yes" env=!NOISY
"""
FILES = {"a.png": "png\n", "b.txt": "txt\n", "c.gif": "gif\n"}
REQUESTS = [{}, {"Origin": "https://example.com"}, {"Origin": "null"},
            {"X-Mode": "debug"}, {"X-Mode": "DEBUGGING"}, {"X-Mode": "Trace"},
            {"Origin": "http://a:1", "X-Mode": "trace"}]
NAMES = ("Access-Control-Allow-Origin", "X-Noisy", "X-Quiet")


@pytest.fixture
def site() -> Iterator[object]:
    from confmig.servers import make_docroot

    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-ngse-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def test_the_plan_states_the_condition(site: object) -> None:
    root = site({**FILES, ".htaccess": HTACCESS})  # type: ignore[operator]
    plan = plan_docroot(root)
    (scope,) = plan.scopes
    conditions = {h.entry.name: h.env_condition for h in scope.settings.headers}
    noisy, quiet = conditions["X-Noisy"], conditions["X-Quiet"]
    assert noisy is not None and quiet is not None
    assert (noisy.header, noisy.pattern, noisy.nocase, noisy.present) == (
        "X-Mode", "^(DEBUG|trace)$", True, True)
    assert not quiet.present
    (files,) = [f for f in scope.files if "gif" in f.basename_regex]
    cors = {h.entry.name: h.env_condition for h in files.settings.headers}[
        "Access-Control-Allow-Origin"]
    assert cors is not None and (cors.header, cors.pattern) == ("Origin", ":")


def test_headers_under_setenvif_are_sent_where_apache_sends_them(
        site: object, apache_binary: object, nginx_binary: object) -> None:
    root = site({**FILES, ".htaccess": HTACCESS})  # type: ignore[operator]
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    # only the SetEnvIf lines themselves stay noted (their variables reach scripts too)
    assert "Header" not in result.stderr, result.stderr
    with both(root) as pair:
        for path in ("/a.png", "/b.txt", "/c.gif", "/missing.png", "/missing"):
            for headers in REQUESTS:
                a, b = pair.ask(path, headers)
                assert a.status == b.status, (path, headers)
                for name in NAMES:
                    assert a.headers.get(name) == b.headers.get(name), (path, headers, name)
        a, _ = pair.ask("/a.png", {"Origin": "https://example.com"})
        assert a.headers.get("Access-Control-Allow-Origin") == "*"
        a, _ = pair.ask("/missing", {"X-Mode": "debug"})
        assert a.status == 404 and a.headers.get("X-Noisy") == "yes"
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()


def test_what_depends_on_more_stays_announced(site: object) -> None:
    """Two lines setting the variable, or a special attribute: not stated, announced."""
    root = site({**FILES, ".htaccess":  # type: ignore[operator]
                 "SetEnvIf Origin a V\nSetEnvIf Referer b V\nHeader set X-V 1 env=V\n"
                 "SetEnvIf Request_URI x W\nHeader set X-W 1 env=W\n"})
    plan = plan_docroot(root)
    assert [h.env_condition for h in plan.scopes[0].settings.headers] == [None, None]
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1 and result.stderr.count("Header: a condition") == 2


@needs_corpus
def test_h5bp_cors_images(site: object, apache_binary: object, nginx_binary: object) -> None:
    text = (CORPUS / "h5bp-server-configs-apache/dist/.htaccess").read_text(encoding="utf-8")
    start = text.index("<IfModule mod_setenvif.c>")
    block = text[start:text.index("</IfModule>\n</IfModule>", start) + 24]
    assert "IS_CORS" in block
    root = site({**FILES, ".htaccess": block})  # type: ignore[operator]
    with both(root) as pair:
        for headers in REQUESTS:
            a, b = pair.ask("/a.png", headers)
            assert a.headers.get(NAMES[0]) == b.headers.get(NAMES[0]), headers


def test_what_a_files_section_holds_is_not_dropped_silently(site: object) -> None:
    """A directive the plan does not carry inside this directory's <FilesMatch> is a note
    (before, only the access file's top level was looked at)."""
    root = site({"a.png": "png\n", ".htaccess":  # type: ignore[operator]
                 '<FilesMatch "\\.png$">\nSetEnvIf Origin ":" V\nRequestHeader set X 1\n'
                 "</FilesMatch>\n"})
    plan = plan_docroot(root)
    assert {n.directive for n in plan.notes if n.changes_behaviour} == {"SetEnvIf",
                                                                         "RequestHeader"}
