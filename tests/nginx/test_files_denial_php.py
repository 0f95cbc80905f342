"""``<FilesMatch>`` denials with ``--php-fpm``: their file tests only where they can deny.

nginx runs every ``if`` of a location, so the denials' tests (a map whose regex tries each
position of the URL, and a stat) sit in a nested location for the URLs the sections'
patterns can match, with the location's other lines again; without ``--php-fpm`` they did
already, with it they ran for every request (issue 12: a static file cost 19.1 µs of nginx's
worker CPU instead of 8.8 on a WordPress site).  The nested location gets its own PHP
location, so a script whose name the pattern matches is still denied, and the answers stay
Apache's: the site of ``test_files_denial_paths.py`` without a front controller, on real
Apache and real nginx with one real php-fpm.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import NginxOptions, convert_docroot
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest
from confmig.verify.nginx import prepare
from tests.nginx.test_files_denial_paths import (
    AFTER_FILE,
    BELOW,
    DENIAL,
    DENIED,
    FILES,
    MISSING,
    OTHERS,
)

pytestmark = [pytest.mark.apache]

SCRIPTS = {"x.sql.php": "<?php echo 'sql script';\n", "d/ok.php": "<?php echo 'ok';\n"}


def _root() -> Path:
    root = make_docroot(prefix="confmig-files-php-", files={**FILES, **SCRIPTS,
                                                            ".htaccess": DENIAL})
    os.symlink(root / "a.sql" / "c.txt", root / "link.sql")
    os.symlink(root / "a.sql", root / "ldir.sql")
    return root


def _own_lines(body: str, match: str) -> str:
    """The lines of *match*'s location before its first nested location."""
    start = body.index(f"location {match} {{")
    rest = body[start:].split("\n", 1)[1]
    return rest[:rest.index("location ")]


def test_the_root_location_runs_no_denial_test() -> None:
    root = _root()
    try:
        body = convert_docroot(root, None, NginxOptions(php_fpm="127.0.0.1:9")).output.body
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert "<FilesMatch \\.sql$>: denied" in body, body
    own = _own_lines(body, "/")
    assert "<FilesMatch" not in own and "return 403" not in own, own
    # the nested location for the names the pattern can match hands .php over too
    nested = body[body.index("a name the <Files> denials can match"):]
    assert "location ~ [^/]\\.php(/|$) {" in nested and "fastcgi_pass" in nested


@pytest.fixture(scope="module")
def servers(apache_binary: object, nginx_binary: object,
            php_fpm_binary: object) -> Iterator[tuple[str, str]]:
    root = _root()
    try:
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=True))
        try:
            for target in (setup.original, setup.converted):
                target.start()
            yield setup.original.base_url, setup.converted.base_url
        finally:
            for target in (setup.converted, setup.original):
                target.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("path", [*DENIED, "/a.sql/b.sql/x.php", "/d/e.sql/ok.php"])
def test_denied_alike(servers: tuple[str, str], path: str) -> None:
    a, b = (http_get(base, path, {}) for base in servers)
    assert a.status == 403, (path, a.status)
    assert b.status == 403, (path, a.status, b.status)


@pytest.mark.parametrize("path", [*OTHERS, *AFTER_FILE, *MISSING, "/x.sql.php", "/d/ok.php",
                                  "/d/ok.php/a.sql", "/x.sql.php/y.sql"])
def test_answered_alike(servers: tuple[str, str], path: str) -> None:
    a, b = (http_get(base, path, {}) for base in servers)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status == 200:
        assert a.body == b.body, path


@pytest.mark.parametrize("path", BELOW)
def test_a_missing_name_below_directories_is_refused(servers: tuple[str, str],
                                                     path: str) -> None:
    a, b = (http_get(base, path, {}) for base in servers)
    assert a.status == 403, (path, a.status)
    assert b.status == 403, (path, a.status, b.status)
