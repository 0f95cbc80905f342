"""CTX008 (relative <Directory> path): each path form, the demo fixture, and the claim itself
checked on a real daemonised Apache."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Finding, Severity
from confmig.lint.testing import finds
from confmig.servers import ApacheServer, daemonised, http_get, make_docroot

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def ctx008(text: str) -> list[Finding]:
    return finds("CTX008", text, kind="server", filename="httpd.conf")


def section(path: str, name: str = "Directory") -> str:
    return f"<{name} {path}>\n    Require all granted\n</{name}>\n"


# -- what is flagged ---------------------------------------------------------------------------


@pytest.mark.parametrize("path, matched", [
    ("demo-site", "/demo-site/"),
    ("demo-site/", "/demo-site/"),
    ('"demo-site"', "/demo-site/"),
    ("'demo-site'", "/demo-site/"),
    ('"my site/htdocs"', "/my site/htdocs/"),
    ("sites/./a/../b", "/sites/b/"),
    ("../htdocs", "/htdocs/"),           # apr_filepath_merge: .. above / stays at /
    (".", "/"),                          # …so <Directory .> is <Directory /> once daemonised
    ('"*"', "/*/"),                      # wildcards are merged too (APR_EPATHWILD accepted)
    ("sites/*", "/sites/*/"),
])
def test_relative_paths_are_flagged_with_what_apache_matches(path: str, matched: str) -> None:
    [f] = ctx008(section(path))
    assert f.line == 1 and f.severity is Severity.warning
    assert f"matches {matched} once Apache daemonises" in f.message
    assert "<ServerRoot>/" in f.message          # no ServerRoot in the text
    assert f.hint is not None and f.hint.startswith("an absolute path")


@pytest.mark.parametrize("path", [
    "/", '"/"', "/var/www/html", '"/var/www/html"', "/var/www/*", '"/srv/my site"',
    "//srv/x", '"C:/xampp/htdocs"',       # a Windows drive path: absolute where it is meant
    '"${NOT_DEFINED}/htdocs"',            # Apache's environment (envvars) may define it
])
def test_absolute_and_undecidable_paths_are_not_flagged(path: str) -> None:
    assert not ctx008(section(path))


@pytest.mark.parametrize("text", [
    section('~ "demo-site"'),                                # <Directory ~ re>
    section('~ "^/var/www/(a|b)"'),
    section('"demo-site"', "DirectoryMatch"),                # matched against the full path
    section('"^/var/www/.*"', "DirectoryMatch"),
])
def test_regex_sections_are_not_flagged(text: str) -> None:
    assert not ctx008(text)


def test_variables_are_expanded_first() -> None:
    [f] = ctx008("Define SITE demo-site\n" + section('"${SITE}"'))
    assert f.line == 2 and "<Directory demo-site> (after ${…} expansion)" in f.message
    assert "/demo-site/" in f.message
    assert not ctx008("Define SITE /var/www/demo\n" + section('"${SITE}"'))
    assert not ctx008("Define BASE /srv\n" + section('"${BASE}/site"'))


def test_quoted_path_with_a_space_is_shown_quoted() -> None:
    [f] = ctx008("ServerRoot /srv\n" + section('"my site"'))
    assert f.message.startswith('<Directory "my site"> is relative')
    assert f.hint == '<Directory "/srv/my site"> (absolute; ServerRoot joined)'


def test_only_the_effective_config_counts() -> None:
    text = "<IfModule not_loaded_module>\n" + section("demo-site") + "</IfModule>\n"
    assert not ctx008(text)
    assert not finds("CTX008", section("demo-site"))   # an access file: not this rule's business


# -- severity ----------------------------------------------------------------------------------


def test_error_when_the_serverroot_reading_is_a_documentroot() -> None:
    text = "ServerRoot /srv/site\n<VirtualHost *:80>\n    DocumentRoot htdocs\n" \
           + section("htdocs") + "</VirtualHost>\n"
    [f] = ctx008(text)
    assert f.severity is Severity.error and f.line == 4
    assert ("matches /htdocs/ once Apache daemonises, not /srv/site/htdocs like DocumentRoot; "
            "this section never applies to that DocumentRoot") in f.message
    assert f.hint == "<Directory /srv/site/htdocs> (absolute; ServerRoot joined)"


def test_error_against_an_absolute_documentroot_too() -> None:
    [f] = ctx008("ServerRoot /srv\nDocumentRoot /srv/www/\n" + section('"www"'))
    assert f.severity is Severity.error


def test_error_without_serverroot_when_both_are_relative() -> None:
    [f] = ctx008("DocumentRoot demo-site\n" + section("demo-site"))
    assert f.severity is Severity.error
    assert "not <ServerRoot>/demo-site like DocumentRoot" in f.message
    assert f.hint is not None and f.hint.startswith("an absolute path")


def test_warning_when_no_documentroot_is_meant() -> None:
    [f] = ctx008("ServerRoot /srv\nDocumentRoot /var/www/html\n" + section("cgi-bin"))
    assert f.severity is Severity.warning
    assert f.hint == "<Directory /srv/cgi-bin> (absolute; ServerRoot joined)"


# -- the CLI -----------------------------------------------------------------------------------


def test_demo_fixture_keeps_its_trap_and_lint_reports_it() -> None:
    result = CliRunner().invoke(app, ["lint", "--no-cache", "--select", "CTX008",
                                      str(FIXTURES / "demo-httpd.conf")])
    assert result.exit_code == 1, result.output
    assert "demo-httpd.conf:17:5: CTX008 error: <Directory demo-site> is relative" \
        in result.output
    assert "matches /demo-site/ once Apache daemonises" in result.output


def test_rule_command_prints_the_docs() -> None:
    result = CliRunner().invoke(app, ["rule", "CTX008"])
    assert result.exit_code == 0
    assert "relative-directory-path" in result.output and "chdir" in result.output


# -- real Apache -------------------------------------------------------------------------------


@pytest.mark.apache
def test_apache_matches_what_the_finding_says(apache_binary, tmp_path: Path) -> None:
    """Two relative sections around one DocumentRoot: the one CTX008 says matches the
    DocumentRoot applies on a daemonised Apache, the one it calls an error (its ServerRoot
    reading *is* the DocumentRoot) does not."""
    docroot = make_docroot(files={"index.html": "hello\n"})
    from_slash = os.path.relpath(docroot, "/")              # tmp/confmig-www-…
    from_server_root = f"../{docroot.name}"                 # ServerRoot is a sibling temp dir
    extra = (f'<Directory "{from_slash}">\n    Header set X-From-Slash yes\n</Directory>\n'
             f'<Directory "{from_server_root}">\n    Header set X-From-ServerRoot yes\n'
             "</Directory>\n")
    server = ApacheServer(docroot, extra_config=extra, keep_dir=True, binary=apache_binary)
    started_in = tmp_path / "elsewhere"
    started_in.mkdir()
    root: Path | None = None
    try:
        with server:  # writes and checks the private config; then it runs as a daemon
            root = server.root
        assert root.parent == docroot.parent, "the ServerRoot-relative path assumes siblings"
        found = [f for f in lint_paths([server.conf_path], settings=Settings(cache=False))
                 .findings if f.code == "CTX008"]
        by_path = {f.message.split(">")[0].removeprefix("<Directory ").strip('"'): f
                   for f in found}
        assert set(by_path) == {from_slash, from_server_root}, found
        slash = by_path[from_slash]
        assert slash.severity is Severity.warning
        assert f"matches {docroot}/ once Apache daemonises" in slash.message
        wrong = by_path[from_server_root]
        assert wrong.severity is Severity.error
        assert f"matches /{docroot.name}/ once Apache daemonises, not {docroot} " \
               "like DocumentRoot" in wrong.message
        assert wrong.hint == f"<Directory {docroot}> (absolute; ServerRoot joined)"
        with daemonised(server, started_in) as url:
            response = http_get(url, "/index.html")
        assert response.status == 200
        assert response.headers.get("X-From-Slash") == "yes"
        assert response.headers.get("X-From-ServerRoot") is None
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(docroot, ignore_errors=True)
