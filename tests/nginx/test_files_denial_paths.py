"""``<FilesMatch>`` denials where a path has several components the section matches.

Apache's directory walk stops at the first component that is not a directory (a file, a
missing name) and matches ``<Files>``/``<FilesMatch>`` against that name, whatever follows
it (PATH_INFO).  So ``/a.sql/b.sql/x`` — ``a.sql`` a directory, ``b.sql`` a file — is denied
by ``<FilesMatch "\\.sql$">``, and so is ``/missing.sql/x``; ``/a.sql/c.txt/x`` is not.  The
converter once tested only the first component the pattern matches (``a.sql``, a directory:
not denied), which a front controller turned into a 200 where Apache answers 403 (issue 12).

Real Apache and real nginx answer the same requests here: a file after a matching directory
(with and without more path, a trailing slash), a missing matching name, a matching
directory reached through a symlink, a matching symlink to a file, ``%2e``, ``//``, a deeper
path — plain, with FallbackResource, with an h5bp-like front-controller rule, and with
``--php-fpm`` (both servers passing ``.php`` to one php-fpm).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pcre2
import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert.nginx.regex import (
    name_then_path,
    then_path_beyond,
    then_path_chain,
    then_path_level,
)
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest
from confmig.verify.nginx import prepare

pytestmark = [pytest.mark.apache]

DENIAL = '<FilesMatch "\\.sql$">\nRequire all denied\n</FilesMatch>\n'
FRONT = ("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
         "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule ^ {front} [L]\n")
#: variant → (what follows the denial in the root .htaccess, the front controller, php-fpm)
VARIANTS = {
    "plain": ("", None, False),
    "fallback": ("FallbackResource /index.html\n", "index.html", False),
    "rules": (FRONT.replace("{front}", "index.html"), "index.html", False),
    "php-fallback": ("FallbackResource /index.php\n", "index.php", True),
    "php-rules": (FRONT.replace("{front}", "index.php"), "index.php", True),
}
FILES = {
    "index.html": "front\n", "index.php": "<?php echo 'front php';\n",
    "a.sql/b.sql": "secret b\n", "a.sql/c.txt": "c\n", "a.sql/index.html": "a index\n",
    "a.sql/s.php": "<?php echo 'script';\n", "c.txt": "top c\n", "d/e.sql": "e\n",
    "d/index.html": "d index\n", "d/e/f/g.txt": "g\n",
}
#: Apache's walk stops at a file or a missing name the section matches: 403 on both.
DENIED = ["/a.sql/b.sql/x", "/a.sql/b.sql", "/a.sql/b.sql/", "/a%2esql/b.sql/x",
          "/a.sql/b%2esql/x", "//a.sql//b.sql/x", "/a.sql/b.sql/c.sql/x", "/ldir.sql/b.sql/x",
          "/link.sql", "/link.sql/x", "/missing.sql", "/missing.sql/x", "/a.sql/missing.sql/x",
          "/a.sql", "/d/e.sql", "/d/e.sql/", "/d/e.sql/x/y"]
#: Apache's walk stops at a name the section does not match.
OTHERS = ["/a.sql/", "/a.sql/c.txt", "/ldir.sql/c.txt", "/missing/b.sql/x", "/d/", "/c.txt",
          "/missing/x", "/a.sql/s.php", "/a.sql/s.php/b.sql/x"]
#: Apache's walk stops at a missing name the section matches below directories it does not
#: match (Files applies to the name where the walk stopped, whatever follows): 403.  nginx
#: without a front controller sends its 404 there to a named location that tells it apart
#: (it answered 404); with one, the front controller's fallback walks the path as Apache
#: does (issue 12: it answered the front controller's 200).
BELOW = ["/d/missing.sql/x", "/d/a.sql/b.sql/x", "/d/missing.sql/", "/d/e/missing.sql/x",
         "/d/e/f/missing.sql/x/y"]
#: Apache's walk stops at a regular file followed by more path: the default handler refuses
#: PATH_INFO (AcceptPathInfo Default), 404 — before no front controller runs (its !-f holds
#: for the file, FallbackResource only takes a missing one).
AFTER_FILE = ["/a.sql/c.txt/x", "/c.txt/b.sql/x", "/d/e/f/g.txt/x", "/c.txt/", "/index.html/x",
              "/d/index.html/x/y"]
#: Apache's walk stops at a missing name no section matches: the front controller's answer
#: — but for a script's name under FallbackResource with PHP (the handler takes it: php-fpm's
#: 404; nginx once answered 500, then the front controller's 200).
MISSING = ["/d/missing/x", "/d/e/f/missing/x/y", "/nonexist/missing.sql/x", "/d/e/missing/",
           "/missing.php", "/d/missing.php", "/missing.php/x", "/nodir/missing.php"]


@dataclass
class Site:
    root: Path
    convert_output: str
    apache: str
    nginx: str

    def ask(self, path: str) -> tuple[object, object]:
        return http_get(self.apache, path, {}), http_get(self.nginx, path, {})


def _docroot(variant: str) -> Path:
    rest, _front, _php = VARIANTS[variant]
    root = make_docroot(prefix="confmig-files-paths-", files={**FILES,
                                                            ".htaccess": DENIAL + rest})
    os.symlink(root / "a.sql" / "c.txt", root / "link.sql")  # a matching link to a file
    os.symlink(root / "a.sql", root / "ldir.sql")  # a matching link to a directory
    return root


@pytest.fixture(scope="module", params=list(VARIANTS))
def site(request: pytest.FixtureRequest, apache_binary: object,
         nginx_binary: object) -> Iterator[Site]:
    variant = request.param
    php = VARIANTS[variant][2]
    if php:
        request.getfixturevalue("php_fpm_binary")
    root = _docroot(variant)
    try:
        args = ["convert", "--to", "nginx", str(root)] + (["--php-fpm", "127.0.0.1:9"]
                                                          if php else [])
        result = CliRunner().invoke(app, args)
        assert "Traceback" not in result.output
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=php))
        try:
            for target in (setup.original, setup.converted):
                target.start()
            yield Site(root, result.stdout + result.stderr, setup.original.base_url,
                       setup.converted.base_url)
        finally:
            for target in (setup.converted, setup.original):
                target.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_denials_are_translated(site: Site) -> None:
    """The converter claims the denials (nothing about them announced), so equal answers
    are what the tests below hold it to."""
    assert ".sql" in site.convert_output
    assert "untranslatable:" not in site.convert_output, site.convert_output


@pytest.mark.parametrize("path", DENIED)
def test_where_apache_denies_nginx_denies(site: Site, path: str) -> None:
    a, b = site.ask(path)
    assert a.status == 403, (path, a.status)  # the case is what it claims to be
    assert b.status == 403, (path, a.status, b.status)


@pytest.mark.parametrize("path", OTHERS)
def test_where_apache_does_not_deny_nginx_answers_alike(site: Site, path: str) -> None:
    a, b = site.ask(path)
    assert a.status != 403, (path, a.status)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status == 200:
        assert a.body == b.body, path


@pytest.mark.parametrize("path", BELOW)
def test_a_missing_name_below_directories(site: Site, path: str) -> None:
    """Denied (403) where Apache's walk stops at it, with a front controller or without."""
    a, b = site.ask(path)
    assert a.status == 403, (path, a.status)
    assert b.status == 403, (path, a.status, b.status)


@pytest.mark.parametrize("path", AFTER_FILE)
def test_a_file_followed_by_path_info(site: Site, path: str) -> None:
    a, b = site.ask(path)
    assert a.status == 404, (path, a.status)
    assert b.status == 404, (path, a.status, b.status)


@pytest.mark.parametrize("path", MISSING)
def test_a_missing_name_no_section_matches(site: Site, path: str) -> None:
    a, b = site.ask(path)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status == 200:
        assert a.body == b.body, path


@pytest.mark.parametrize(("uri", "levels", "chain", "beyond"), [
    ("/a.sql/b.sql/x", ["/a.sql", "/a.sql/b.sql"], ["/a.sql", "/a.sql/b.sql"], None),
    ("/d/a.sql/b.sql/", ["/d/a.sql", "/d/a.sql/b.sql"], [None, None], None),
    ("/a.sql/d/b.sql/c.sql/x", ["/a.sql", "/a.sql/d/b.sql"], ["/a.sql", None],
     "/a.sql/d/b.sql"),
    ("/a.sql", [None, None], [None, None], None),
    ("/x.sqlite/y", [None, None], [None, None], None),
])
def test_the_paths_each_test_names(uri: str, levels: list[str | None],
                                   chain: list[str | None], beyond: str | None) -> None:
    """The first, second (and more) components the pattern matches, followed by more path."""
    body = name_then_path("\\.sql$")

    def named(regex: str) -> str | None:
        found = pcre2.compile(regex).match(uri)
        return found.group("n") if found else None

    assert [named(then_path_level(body, "n", k)) for k in (1, 2)] == levels
    assert [named(then_path_chain(body, "n", k)) for k in (1, 2)] == chain
    assert named(then_path_beyond(body, "n", 2)) == beyond
