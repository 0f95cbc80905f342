"""The linter's environment resolves a relative ``<Directory>`` path the way Apache does.

``dirsection`` (httpd server/core.c) merges a non-regex ``<Directory>`` path with the working
directory of the process — ``/`` once Apache daemonises — not with ServerRoot, which is what
``DocumentRoot`` (``ap_server_root_relative``) is relative to.  So in

    DocumentRoot site
    <Directory />    AllowOverride None
    <Directory site> AllowOverride All       # is /site/, not <ServerRoot>/site

the site's ``.htaccess`` is governed by ``<Directory />``: Apache never opens it.  CTX008 explains
the trap on the server config; every other rule (CTX003 here) must see that effective
configuration.  The last test checks the claim on a real daemonised Apache.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.lint.config import Settings
from confmig.lint.context import ServerLayout, directory_section_path, make_environment
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Finding, Severity
from confmig.lint.testing import write_tree
from confmig.servers import ApacheServer, daemonised, http_get, make_docroot
from confmig.syntax import parse_text

NO_CACHE = Settings(cache=False)
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def layout(text: str, server_root: str = "/etc/apache2") -> ServerLayout:
    return ServerLayout.from_nodes(parse_text(text, "httpd.conf").nodes, server_root)


@pytest.mark.parametrize(("written", "resolved"), [
    ("site", "/site"),
    ("site/", "/site"),
    ("sites/./a/../b", "/sites/b"),
    ("../htdocs", "/htdocs"),        # apr_filepath_merge: .. above / stays at /
    (".", "/"),
    ("*", "/*"),
    ("/var/www/", "/var/www"),
    ("/", "/"),
])
def test_directory_section_path(written: str, resolved: str) -> None:
    assert directory_section_path(written) == resolved


def test_relative_directory_is_taken_from_slash_not_server_root() -> None:
    found = layout("<Directory />\n AllowOverride None\n</Directory>\n"
                   "<Directory www>\n AllowOverride All\n</Directory>\n")
    assert found.overrides_for("/www/x").words == ("All",)
    assert found.overrides_for("/etc/apache2/www/x").words == ("None",)


def test_relative_document_root_stays_server_root_relative() -> None:
    found = layout("DocumentRoot www\n<VirtualHost *:80>\n DocumentRoot site\n"
                   " <Directory site>\n  AllowOverride All\n </Directory>\n</VirtualHost>\n")
    assert found.document_root == "/etc/apache2/www"
    [(root, [section])] = found.vhosts
    assert root == "/etc/apache2/site" and section.path == "/site"
    # the vhost's section only applies below its DocumentRoot, which /site is not
    assert found.overrides_for("/etc/apache2/site").words == ()
    assert found.overrides_for("/site").words == ()


def test_regex_sections_are_still_not_merged() -> None:
    found = layout('<Directory ~ "site">\n AllowOverride All\n</Directory>\n'
                   '<DirectoryMatch "site">\n AllowOverride All\n</DirectoryMatch>\n')
    assert found.main == []


def _server(tmp_path: Path) -> tuple[Path, Path]:
    """The brief's config: ServerRoot tmp_path, DocumentRoot site, a relative
    ``<Directory site>`` granting All, ``<Directory />`` granting nothing."""
    write_tree(tmp_path, {"site/.htaccess": "Header set X-Htaccess read\n",
                          "site/index.html": "hello\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"ServerRoot {tmp_path}\n"
                    "LoadModule headers_module modules/mod_headers.so\n"
                    "<Directory />\n    AllowOverride None\n</Directory>\n"
                    "DocumentRoot site\n"
                    "<Directory site>\n    AllowOverride All\n</Directory>\n")
    return conf, tmp_path / "site"


def test_environment_says_the_sites_htaccess_is_not_read(tmp_path: Path) -> None:
    conf, site = _server(tmp_path)
    env = make_environment(conf, set())
    assert env.layout is not None and env.layout.document_root == str(site)
    found = env.overrides_for(str(site))
    assert found.words == ("None",) and found.none
    assert found.source == f"{conf}:4:5"                 # <Directory />'s AllowOverride
    assert env.overrides_for("/site").words == ("All",)  # where <Directory site> applies


def _by_code(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def test_ctx003_reports_the_unread_htaccess_and_ctx008_the_trap(tmp_path: Path) -> None:
    conf, site = _server(tmp_path)
    [unread] = _by_code(lint_paths([site], conf, settings=NO_CACHE).findings, "CTX003")
    assert unread.file == str(site / ".htaccess")
    assert f"AllowOverride None is in force for {site} ({conf}:4:5)" in unread.message
    # the server config itself (linted as one: without --config)
    [trap] = _by_code(lint_paths([conf], settings=NO_CACHE).findings, "CTX008")
    assert trap.line == 7 and trap.severity is Severity.error


def test_demo_fixture_site_is_governed_by_directory_slash() -> None:
    conf = FIXTURES / "demo-httpd.conf"
    env = make_environment(conf, set())
    found = env.overrides_for(str(FIXTURES / "demo-site"))
    assert found.words == ("None",) and found.source == f"{conf}:10:5"
    result = CliRunner().invoke(app, ["lint", "--no-cache", "--select", "CTX003", "--config",
                                      str(conf), str(FIXTURES / "demo-site")])
    assert result.exit_code == 1, result.output
    assert result.output.count("CTX003 warning: AllowOverride None is in force") == 6


@pytest.mark.apache
def test_apache_does_not_read_what_ctx003_says_it_does_not(apache_binary) -> None:
    """On a daemonised Apache: ``<Directory ../<docroot>>`` (ServerRoot-relative, the old
    reading) granting All leaves the DocumentRoot's .htaccess unread, while a section
    written relative to ``/`` does govern its subdirectory ``read/``.  The lint of the same
    config says exactly that."""
    docroot = make_docroot(files={".htaccess": "Header set X-Top read\n",
                                  "index.html": "hello\n",
                                  "read/.htaccess": "Header set X-Sub read\n",
                                  "read/index.html": "hello\n"})
    from_slash = os.path.relpath(docroot, "/")              # tmp/confmig-www-…
    site = ('DocumentRoot "${CONFMIG_DOCROOT}"\n'
            '<Directory "${CONFMIG_DOCROOT}">\n    Require all granted\n</Directory>\n'
            f'<Directory "../{docroot.name}">\n    AllowOverride All\n</Directory>\n'
            f'<Directory "{from_slash}/read">\n    AllowOverride All\n</Directory>\n')
    server = ApacheServer(docroot, server_config=site, keep_dir=True, binary=apache_binary)
    root: Path | None = None
    try:
        with server:
            root = server.root
        assert root.parent == docroot.parent, "the ServerRoot-relative path assumes siblings"
        result = lint_paths([docroot], server.conf_path, settings=NO_CACHE)
        unread = {Path(f.file).parent for f in _by_code(result.findings, "CTX003")}
        assert unread == {docroot}, result.findings
        # started from ServerRoot, where "../<docroot>" *is* the docroot: it still does not
        # apply, because the daemon re-reads its config after chdir("/")
        with daemonised(server, root) as url:
            top = http_get(url, "/index.html")
            sub = http_get(url, "/read/index.html")
        assert top.status == 200 and top.headers.get("X-Top") is None
        assert sub.status == 200 and sub.headers.get("X-Sub") == "read"
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(docroot, ignore_errors=True)
