"""SEC002 on a server config alone asks the request model about every virtual host's
DocumentRoot, not only a top-level one: Debian's layout sets ``DocumentRoot /var/www/html``
only inside ``<VirtualHost *:80>`` (sites-enabled/000-default.conf), and before this was
checked such a config never got the check.  The finding is anchored at the vhost's own
``DocumentRoot`` (the file and line inside the ``<VirtualHost>``); real Apache confirms it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths
from confmig.lint.finding import Finding, Severity
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot

APACHE2_CONF = (  # the access part of Debian's apache2.conf
    "ServerRoot {root}\n"
    "<Directory />\n    Options FollowSymLinks\n    AllowOverride None\n"
    "    Require all denied\n</Directory>\n"
    "<Directory /usr/share>\n    AllowOverride None\n    Require all granted\n</Directory>\n"
    "<Directory /var/www/>\n    Options Indexes FollowSymLinks\n    AllowOverride None\n"
    "    Require all granted\n</Directory>\n"
    "AccessFileName .htaccess\n"
    '<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n'
    '<FilesMatch "^\\.env$">\n    Require all denied\n</FilesMatch>\n'
    "IncludeOptional sites-enabled/*.conf\n"
)
DEFAULT_SITE = (  # sites-available/000-default.conf, comments left out
    "<VirtualHost *:80>\n"
    "    ServerAdmin webmaster@localhost\n"
    "    DocumentRoot /var/www/html\n"
    "    ErrorLog ${APACHE_LOG_DIR}/error.log\n"
    "</VirtualHost>\n"
)
GIT_NOTE = (" (<Files>/<FilesMatch> only see the file name — HEAD, config — never the .git "
            "directory)")
# refuses every sample: dot files (.git/, .env) and dumps
DENY_ALL = '    RedirectMatch 404 "(^|/)\\.|\\.(bak|sql)$"\n'


def sec002(result: LintResult) -> list[Finding]:
    return [f for f in result.findings if f.code == "SEC002"]


def test_debian_layout_document_root_in_the_default_vhost(tmp_path: Path) -> None:
    # Before: no top-level DocumentRoot, so no check at all — no finding.
    write(tmp_path, {"apache2.conf": APACHE2_CONF.format(root=tmp_path),
                     "sites-enabled/000-default.conf": DEFAULT_SITE})
    [f] = sec002(lint_paths([tmp_path / "apache2.conf"], settings=Settings(cache=False)))
    assert (f.file, f.line) == (str(tmp_path / "sites-enabled/000-default.conf"), 3)
    assert f.severity is Severity.info
    assert f.message == ("this server config denies some sensitive files but not "
                         "/.git/, *.bak, *.sql" + GIT_NOTE)


def test_debian_layout_with_everything_denied_in_the_vhost(tmp_path: Path) -> None:
    site = DEFAULT_SITE.replace("</VirtualHost>", DENY_ALL + "</VirtualHost>")
    write(tmp_path, {"apache2.conf": APACHE2_CONF.format(root=tmp_path),
                     "sites-enabled/000-default.conf": site})
    assert not sec002(lint_paths([tmp_path / "apache2.conf"], settings=Settings(cache=False)))


def test_only_the_vhost_with_a_hole_is_reported() -> None:
    text = (
        "<Directory /srv/>\n    Require all granted\n</Directory>\n"
        "<VirtualHost *:80>\n    ServerName a.example\n    DocumentRoot /srv/a\n"
        + DENY_ALL + "</VirtualHost>\n"
        "<VirtualHost *:80>\n    ServerName b.example\n    DocumentRoot /srv/b\n"
        '    RedirectMatch 404 "/\\.env$"\n</VirtualHost>\n'
    )
    [f] = finds("SEC002", text, kind="server")
    assert f.line == 11  # b.example's DocumentRoot
    assert f.message == ("this server config denies some sensitive files but not "
                         "/.git/, *.bak, *.sql" + GIT_NOTE)
    # the same vhost, now closed too: nothing
    closed = text.replace('    RedirectMatch 404 "/\\.env$"\n', DENY_ALL)
    assert not finds("SEC002", closed, kind="server")


def test_vhosts_sharing_a_document_root_give_one_finding() -> None:
    # :80 denies .env, :443 denies .git: one finding (at the first), naming both holes.
    text = (
        "<Directory /srv/>\n    Require all granted\n</Directory>\n"
        "<VirtualHost *:80>\n    DocumentRoot /srv/www\n"
        '    RedirectMatch 404 "/\\.env$"\n</VirtualHost>\n'
        "<VirtualHost *:443>\n    DocumentRoot /srv/www\n"
        '    RedirectMatch 404 "/\\.git/"\n</VirtualHost>\n'
    )
    [f] = finds("SEC002", text, kind="server")
    assert f.line == 5
    assert f.message.startswith("this server config denies some sensitive files but not "
                                "/.git/, /.env, *.bak, *.sql")


def test_a_top_level_document_root_is_reported_as_before() -> None:
    # The main server's DocumentRoot (and vhosts inheriting it) keeps its one finding at the
    # top-level directive; a vhost that denies everything under its own root adds nothing.
    text = (
        "DocumentRoot /srv/main\n"
        "<Directory /srv/>\n    Require all granted\n</Directory>\n"
        '<FilesMatch "^\\.env$">\n    Require all denied\n</FilesMatch>\n'
        "<VirtualHost *:80>\n    DocumentRoot /srv/other\n" + DENY_ALL + "</VirtualHost>\n"
    )
    [f] = finds("SEC002", text, kind="server")
    assert f.line == 1
    assert f.message == ("this server config denies some sensitive files but not "
                         "/.git/, *.bak, *.sql" + GIT_NOTE)


@pytest.mark.apache
def test_apache_serves_what_the_vhost_finding_names(apache_binary: ApacheBinary) -> None:
    root = make_docroot(prefix="confmig-sec002-vhost-")
    try:
        write(root, {".git/HEAD": "ref: refs/heads/main\n", ".env": "A=1\n",
                     "wp-config.php.bak": "<?php\n", "backup.sql": "CREATE TABLE t;\n",
                     "index.html": "x"})
        site = (f'<Directory "{root.parent}/">\n    Require all granted\n</Directory>\n'
                '<FilesMatch "^\\.env$">\n    Require all denied\n</FilesMatch>\n'
                "<VirtualHost *:${CONFMIG_PORT}>\n"
                f'    DocumentRoot "{root}"\n'
                "</VirtualHost>\n")
        with ApacheServer(root, server_config=site, binary=apache_binary) as server:
            statuses = {p: http_get(server.base_url, p).status
                        for p in ("/.git/HEAD", "/.env", "/wp-config.php.bak", "/backup.sql")}
            assert statuses == {"/.git/HEAD": 200, "/.env": 403, "/wp-config.php.bak": 200,
                                "/backup.sql": 200}
            [f] = sec002(lint_paths([server.conf_path], settings=Settings(cache=False)))
            assert f.file.endswith("site.conf") and f.line == 8
            assert f.message == ("this server config denies some sensitive files but not "
                                 "/.git/, *.bak, *.sql" + GIT_NOTE)
    finally:
        shutil.rmtree(root, ignore_errors=True)
