"""Lint rules that resolve config paths use Apache's two rules (confmig/apache/paths.py):

* SEC002 takes a relative ``DocumentRoot`` from ServerRoot (``ap_server_root_relative``);
* SEC006/SEC008 (``root_directory``) see ``<Directory .>``, ``<Directory ..>``,
  ``<Directory "">`` as the ``<Directory />`` they are once Apache daemonises;
* mod_rewrite's per-directory prefix of a relative ``<Directory site>`` is ``/site/``
  (``Scope.directory``; RW004 shows it).

Each claim is also checked on a real Apache (foreground for DocumentRoot, daemonised for
``<Directory>``, whose relative paths depend on the working directory).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from confmig.lint.finding import Severity
from confmig.lint.scopes import build_scopes, walk_directives
from confmig.lint.testing import finds
from confmig.servers import ApacheServer, daemonised, http_get, make_docroot
from confmig.syntax import parse_text

# -- SEC002: a relative DocumentRoot -----------------------------------------------------------

GIT_DENIED = "<Directory {git}>\n    Require all denied\n</Directory>\n"


def test_sec002_relative_document_root_is_read_from_server_root() -> None:
    # before: the samples were site/.git/HEAD…, which /srv/site/.git never covers — no finding
    text = "ServerRoot /srv\nDocumentRoot site\n" + GIT_DENIED.format(git="/srv/site/.git")
    [f] = finds("SEC002", text, kind="server")
    assert f.line == 2 and f.severity is Severity.info
    assert f.message == ("this server config denies some sensitive files but not "
                         "/.env, *.bak, *.sql")
    # the same as with the absolute DocumentRoot Apache reads
    absolute = text.replace("DocumentRoot site", "DocumentRoot /srv/site")
    assert [g.message for g in finds("SEC002", absolute, kind="server")] == [f.message]


def test_sec002_relative_directory_does_not_protect_a_relative_document_root() -> None:
    # <Directory site/.git> is /site/.git/ (not /srv/site/.git): nothing is denied, so no
    # "denies some" finding (before: both relative, they matched as strings and it said
    # .git was denied)
    text = "ServerRoot /srv\nDocumentRoot site\n" + GIT_DENIED.format(git="site/.git")
    assert not finds("SEC002", text, kind="server")


# -- SEC006 / SEC008: the root directory -------------------------------------------------------


def root_section(path: str) -> str:
    return (f"<Directory {path}>\n    AllowOverride All\n    Require all granted\n"
            "</Directory>\n")


@pytest.mark.parametrize("path", [
    "/", "//", '"/"', '"/.."', ".", "..", "../..", '"./"', '""', "''", "./.",
])
def test_root_directory_forms(path: str) -> None:
    # before: only /, // and "/.." (os.path.normpath) — not . .. "" (Apache: / once daemonised)
    [f6] = finds("SEC006", root_section(path), kind="server")
    [f8] = finds("SEC008", root_section(path), kind="server")
    assert (f6.line, f8.line) == (2, 3)


@pytest.mark.parametrize("path", [
    "site", "/srv", "./site", "../srv", "/*", '"*"', '~ "^/$"', '~ "."',
])
def test_not_the_root_directory(path: str) -> None:
    assert not finds("SEC006", root_section(path), kind="server")
    assert not finds("SEC008", root_section(path), kind="server")
    text = root_section(path).replace("Directory", "DirectoryMatch")
    assert not finds("SEC008", text, kind="server")


# -- Scope.directory: mod_rewrite's per-directory prefix ---------------------------------------


def directories(text: str) -> list[str | None]:
    config = parse_text(text, "httpd.conf")
    return [s.directory for s in build_scopes(walk_directives(config.nodes), htaccess=False)]


@pytest.mark.parametrize("section, prefix", [
    ("<Directory /var/www>", "/var/www/"),
    ('<Directory "/var/www/">', "/var/www/"),
    ("<Directory site>", "/site/"),                  # before: site
    ("<Directory ./site/../blog>", "/blog/"),        # before: ./site/../blog
    ("<Directory ../site>", "/site/"),               # before: ../site
    ("<Directory .>", "/"),                          # before: .
    ("<Directory />", "/"),
    ("<Directory /var/www/*>", None),                # a wildcard: never a prefix
    ('<Directory ~ "^/var/www">', None),
    ('<DirectoryMatch "^/var/www">', None),
    ("<Files x>", None),
])
def test_scope_directory_is_the_path_apache_strips(section: str, prefix: str | None) -> None:
    name = section[1:].split()[0]
    text = f"{section}\n    RewriteEngine On\n</{name}>\n"
    assert directories(text) == [prefix]


def test_rw004_relative_directory_target() -> None:
    text = ("<Directory site>\n    RewriteEngine On\n"
            "    RewriteRule ^old$ new [R=301,L]\n</Directory>\n")
    [f] = finds("RW004", text, kind="server")
    # before: "(site/new)"
    assert f.message.endswith("Apache redirects to the filesystem path (/site/new)")


# -- real Apache -------------------------------------------------------------------------------


@pytest.mark.apache
def test_apache_reads_a_relative_document_root_from_server_root(apache_binary) -> None:
    """``DocumentRoot ../<docroot>`` (ServerRoot is a sibling temp dir) serves the docroot,
    and ``<Directory <docroot>/.git>`` denies it there: what SEC002 now reports."""
    docroot = make_docroot(files={"index.html": "hello\n", ".git/HEAD": "ref\n",
                                  ".env": "A=1\n"})
    site = (f'DocumentRoot "../{docroot.name}"\n'
            f'<Directory "{docroot}">\n    Require all granted\n</Directory>\n'
            + GIT_DENIED.format(git=f'"{docroot}/.git"'))
    try:
        with ApacheServer(docroot, server_config=site, binary=apache_binary) as server:
            assert server.root.parent == docroot.parent, "../<docroot> assumes siblings"
            statuses = {p: http_get(server.base_url, p).status
                        for p in ("/index.html", "/.env", "/.git/HEAD")}
            assert statuses == {"/index.html": 200, "/.env": 200, "/.git/HEAD": 403}
            [f] = finds("SEC002", f'ServerRoot "{server.root}"\n' + site, kind="server")
            assert "/.env" in f.message and "/.git/" not in f.message
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


@pytest.mark.apache
def test_apache_reads_dot_dotdot_and_empty_directories_as_root(apache_binary,
                                                              tmp_path: Path) -> None:
    """On a daemonised Apache (working directory ``/``): ``<Directory ..>`` grants the whole
    filesystem (SEC008), ``<Directory .>`` lets every .htaccess be read (SEC006),
    ``<Directory "">`` applies everywhere, and a relative ``<Directory var/tmp/…>``'s
    mod_rewrite prefix is ``/var/tmp/…/`` (RW004).

    The docroot is outside the parent of ServerRoot and of the directory Apache is started
    from, so reading these paths from ServerRoot or from the starting directory would leave
    the docroot denied, its .htaccess unread and no header set."""
    docroot = make_docroot(parent="/var/tmp", files={
        "index.html": "hello\n", ".htaccess": "Header set X-Htaccess read\n"})
    from_slash = os.path.relpath(docroot, "/")              # var/tmp/confmig-www-…
    started_in = tmp_path / "elsewhere"
    started_in.mkdir()
    # the template's <Directory /> has AllowOverride None and Require all denied
    site = (f'DocumentRoot "{docroot}"\n'
            "<Directory ..>\n    Require all granted\n</Directory>\n"
            "<Directory .>\n    AllowOverride FileInfo\n</Directory>\n"
            '<Directory "">\n    Header set X-Empty root\n</Directory>\n'
            f'<Directory "{from_slash}">\n    RewriteEngine On\n'
            "    RewriteRule ^old$ new [R=301,L]\n</Directory>\n")
    server = ApacheServer(docroot, server_config=site, keep_dir=True, binary=apache_binary)
    root: Path | None = None
    try:
        with server:  # writes and checks the private config; then it runs as a daemon
            root = server.root
        for elsewhere in (root.parent, started_in.parent):
            assert not str(docroot).startswith(f"{elsewhere}/"), elsewhere
        with daemonised(server, started_in) as base:
            page = http_get(base, "/index.html")
            assert page.status == 200, page.status                      # <Directory ..>
            assert page.headers.get("X-Htaccess") == "read"             # <Directory .>
            assert page.headers.get("X-Empty") == "root"                # <Directory "">
            moved = http_get(base, "/old")
            assert moved.status == 301
            assert moved.headers["Location"] == f"{base}/{from_slash}/new"
        # what the linter says about the same text
        assert [f.line for f in finds("SEC008", site, kind="server")] == [3]
        assert [f.line for f in finds("SEC006", site, kind="server")] == [6]
        [rw004] = finds("RW004", site, kind="server")
        assert rw004.message.endswith(f"filesystem path (/{from_slash}/new)")
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(docroot, ignore_errors=True)
