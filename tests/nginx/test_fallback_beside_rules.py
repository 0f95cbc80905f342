"""A front controller beside other RewriteRules: nginx keeps the fallback (issue 12).

The rules become ``if (…) { set … }`` lines, and an nginx ``if`` that matches makes its block
the request's configuration, which has no ``try_files``: with ``FallbackResource /index.php``
and ``RewriteRule ^old$ /new [L]`` nginx answered a missing path with its own 404 where
Apache runs the fallback.  The converter now does the front controller's work in the rewrite
phase too (every line ending it) when such an ``if`` comes before it, and a rule that ends
the rules (``- [L]``, a URL rewritten to its own file) no longer ``break``s there.  Each
shape runs on real Apache and real nginx through ``verify``, with and without ``--php-fpm``;
a rewrite followed by the fallback is checked for the ``REDIRECT_*`` the script sees (the
rewrite's internal redirect, kept by mod_dir's fast redirect).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import NginxOptions, convert_docroot
from confmig.convert.nginx.render import FRONT_BY_HAND
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare

pytestmark = [pytest.mark.apache]

SCRIPT = "<?php echo 'app';\n"
FILES = {"index.php": SCRIPT, "new": "new\n", "a.txt": "a\n", "d/x.txt": "x\n",
         "d/e/n.txt": "n\n", "s/index.php": SCRIPT, "s/t.txt": "t\n"}
FALLBACK = "FallbackResource /index.php\n"
FRONT = ("RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\n"
         "RewriteRule . /index.php [L]\n")
#: shape → its .htaccess files (all failed before but the two !-f/!-d front controllers,
#: which are translated as rules, not try_files: kept as they are)
SHAPES: dict[str, dict[str, str]] = {
    "fallback-rule": {".htaccess": FALLBACK + "RewriteEngine On\nRewriteRule ^old$ /new [L]\n"},
    "fallback-host-condition": {
        ".htaccess": FALLBACK + "RewriteEngine On\nRewriteCond %{HTTP_HOST} !^www\\. [NC]\n"
                                "RewriteRule ^old$ /new [L]\n"},
    "fallback-env": {".htaccess": FALLBACK + "RewriteEngine On\nRewriteRule ^old$ - [E=FOO:bar]\n"
                                             "RewriteRule ^x$ /%{ENV:FOO} [L]\n"},
    "fallback-skip": {".htaccess": FALLBACK + "RewriteEngine On\nRewriteRule ^old$ - [S=1]\n"
                                              "RewriteRule ^a\\.txt$ /new [L]\n"},
    "fallback-rule-in-subdirectory": {
        ".htaccess": FALLBACK, "d/.htaccess": "RewriteEngine On\nRewriteRule ^old$ /new [L]\n"},
    "fallback-stop": {".htaccess": FALLBACK + "RewriteEngine On\nRewriteRule ^api/ - [L]\n"},
    # a URL rewritten to its own file: no internal redirect, then the fallback if it is missing
    "fallback-self-rewrite": {
        ".htaccess": FALLBACK + "RewriteEngine On\nRewriteRule ^ghost$ ghost [L]\n"
                                "RewriteRule ^a\\.txt$ a.txt [L]\n"},
    "fallback-after-rewrite": {
        ".htaccess": FALLBACK + "RewriteEngine On\nRewriteRule ^old$ /missing [L]\n"
                                "RewriteRule ^deep$ /m/x/y [L]\n"},
    "front-host-redirect": {
        ".htaccess": "RewriteEngine On\nRewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
                     "RewriteRule ^ http://%1/ [R=301,L]\n" + FRONT},
    "front-rule": {".htaccess": "RewriteEngine On\nRewriteRule ^old$ /new [L]\n" + FRONT},
}


def _site(name: str) -> Path:
    return make_docroot(prefix=f"confmig-fallback-rules-{name}-",
                        files={**FILES, **SHAPES[name]})


@pytest.mark.parametrize("php", [False, True], ids=["static", "php-fpm"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_verify_finds_no_difference(apache_binary: object, nginx_binary: object,
                                    php_fpm_binary: Path, name: str, php: bool) -> None:
    """Every probe of the site (misses, the rules' patterns and near misses, directories,
    the PHP probes) answered alike by real Apache and real nginx."""
    root = _site(name)
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=php,
                                      max_requests=600, timeout=300))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.exit_code == 0, report.summary()
    # (the [E=] shape's %{ENV:FOO} read before a rule set it is announced: denied)
    assert not [r for r in report.differing if not r.announced], report.summary()
    assert report.sent >= 20, report.summary()


@contextlib.contextmanager
def _both(name: str) -> Iterator[tuple[str, str]]:
    root = _site(name)
    try:
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=True))
        with contextlib.ExitStack() as stack:
            for target in (setup.original, setup.converted):
                stack.callback(target.stop)
                target.start()
            yield setup.original.base_url, setup.converted.base_url
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(("path", "expected"), [
    ("/old", ["REDIRECT_STATUS=200", "REDIRECT_URL=/old"]),
    ("/old?a=1&b=%20", ["REDIRECT_QUERY_STRING=a=1&b=%20", "REDIRECT_STATUS=200",
                        "REDIRECT_URL=/old"]),
    ("/deep", ["REDIRECT_STATUS=200", "REDIRECT_URL=/deep"]),
    ("/slug", []),
])
def test_rewrite_then_fallback_redirect_variables(apache_binary: object, nginx_binary: object,
                                                  php_fpm_binary: Path, path: str,
                                                  expected: list[str]) -> None:
    """``RewriteRule ^old$ /missing [L]`` under FallbackResource: Apache's internal
    redirect to /missing, then mod_dir's fast redirect to /index.php, which keeps the
    rewrite's REDIRECT_URL and REDIRECT_QUERY_STRING; a plain miss has none.  nginx hands
    the script the same."""
    with _both("fallback-after-rewrite") as (apache, nginx):
        a = http_get(apache, path, {}, "GET")
        b = http_get(nginx, path, {}, "GET")
    a_lines = a.body.decode("utf-8", errors="replace").splitlines()
    assert a.status == 200 and "SCRIPT_NAME=/index.php" in a_lines, (path, a_lines)
    assert sorted(line for line in a_lines if line.startswith("REDIRECT_")) == expected, a_lines
    assert (b.status, b.body) == (a.status, a.body), (path, a.body, b.body)


def _server(files: dict[str, str], php: bool) -> str:
    root = make_docroot(prefix="confmig-fallback-rules-out-", files={**FILES, **files})
    try:
        options = NginxOptions(php_fpm="127.0.0.1:9000" if php else None)
        return convert_docroot(root, None, options).output.body
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("php", [False, True], ids=["static", "php-fpm"])
def test_by_hand_only_where_an_if_can_match(php: bool) -> None:
    """The front controller's work is done in the rewrite phase only after an ``if`` that
    can match without ending it, right before ``try_files``; never in a PHP location (its
    ``try_files`` is the script's); a FallbackResource without rules is unchanged."""
    plain = _server({".htaccess": FALLBACK}, php)
    assert FRONT_BY_HAND not in plain
    body = _server(SHAPES["fallback-rule"], php)
    lines = [line.strip() for line in body.splitlines()]
    starts = [k for k, line in enumerate(lines) if line == FRONT_BY_HAND]
    assert starts, body
    for k in starts:
        rest = lines[k:]
        end = next(i for i, line in enumerate(rest) if line.startswith("try_files "))
        block = [line for line in rest[:end] if line.startswith("if (")]
        assert block[0] == "if (-e $request_filename) { break; }", block
        assert all(line.endswith(("return 404; }", "return 403; }", 'last; }'))
                   for line in block[1:]), block
        assert rest[end - 1].startswith("rewrite ^ "), rest[:end]
    if php:
        php_location = body[body.index("location ~ [^/]\\.php"):]
        php_location = php_location[:php_location.index("\n        }")]
        assert "fastcgi_pass" in php_location
        assert FRONT_BY_HAND not in php_location
