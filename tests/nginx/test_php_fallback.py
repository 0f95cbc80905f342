"""``FallbackResource`` with ``--php-fpm``: the script sees what Apache hands it.

mod_dir's fallback is a *fast* internal redirect (``ap_internal_fast_redirect``: the request
itself takes the sub-request's script), so the script sees no ``REDIRECT_*`` variable — while
a ``RewriteRule . /index.php [L]`` front controller is an internal redirect
(``REDIRECT_STATUS=200``, ``REDIRECT_URL``, ``REDIRECT_QUERY_STRING``).  nginx reaches the
script through ``try_files``/``rewrite … last`` in both cases and once handed it
``REDIRECT_STATUS``/``REDIRECT_URL`` under FallbackResource too (issue 12).

Real Apache (mod_proxy_fcgi) and real nginx (the converted ``fastcgi_pass``) hand ``.php`` to
one real php-fpm running the verifier's probe, which prints what the application sees:
SCRIPT_NAME, PATH_INFO, REQUEST_URI, QUERY_STRING, REQUEST_METHOD, REDIRECT_* …
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare

pytestmark = [pytest.mark.apache]

SCRIPT = "<?php echo 'app';\n"
FRONT_RULE = ("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
              "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . /index.php [L]\n")
#: (method, path below the site's prefix): a pretty URL, a longer one (the front
#: controller's walk), a query, a POST, a missing script in a missing directory
REQUESTS = [("GET", "/slug"), ("GET", "/d/slug/x"), ("GET", "/slug?a=1&b=%20&c=%2F"),
            ("POST", "/slug?q=1"), ("GET", "/nodir/missing.php")]
#: FallbackResource also answers mod_dir's sub-request for the first index name when it is
#: missing and no handler takes it (Debian's index.html): a directory without an index file,
#: and one with only index.php, are the fallback's
DIRECTORIES = [("GET", "/d/e/"), ("GET", "/i/")]
FILES = {"index.php": SCRIPT, "a.txt": "a\n", "d/x.php": SCRIPT, "d/e/notes.txt": "n\n",
         "i/index.php": SCRIPT}
#: site → (its files, the URL prefix of its front controller, the script, whether Apache
#: reaches it through an internal redirect, the requests the script answers)
SITES: dict[str, tuple[dict[str, str], str, str, bool, list[tuple[str, str]]]] = {
    "fallback-root": ({**FILES, ".htaccess": "FallbackResource /index.php\n"},
                      "", "/index.php", False, [*REQUESTS, *DIRECTORIES]),
    "fallback-subdirectory": ({"index.php": SCRIPT, "a.txt": "a\n",
                               **{f"s/{name}": text for name, text in FILES.items()},
                               "s/.htaccess": "FallbackResource /s/index.php\n"},
                              "/s", "/s/index.php", False, [*REQUESTS, *DIRECTORIES]),
    # every index name gets a handler (PHP's): a missing one is no fallback's, /d/e/ is
    # listed and /i/ runs /i/index.php (verify only)
    "fallback-index-php": ({**FILES, ".htaccess": "DirectoryIndex index.php\n"
                                                  "FallbackResource /index.php\n"},
                           "", "/index.php", False, REQUESTS),
    # no index name, no sub-request: directories are listed, not the fallback's (verify)
    "fallback-index-disabled": ({**FILES, ".htaccess": "DirectoryIndex disabled\n"
                                                       "FallbackResource /index.php\n"},
                                "", "/index.php", False, REQUESTS),
    # a rule below hands the Authorization header to scripts, the fallback's script is
    # above it: the fast redirect keeps the first pass's variable (HTTP_AUTHORIZATION, set
    # empty without the header), no REDIRECT_HTTP_AUTHORIZATION (test_the_first_pass_...)
    "fallback-env-below": ({**FILES, ".htaccess": "FallbackResource /index.php\n",
                            "d/.htaccess": "RewriteEngine On\nRewriteRule .* - "
                                           "[E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]\n"},
                           "", "/index.php", False, []),
    # a directory is no front controller's for the rewrite (its !-d)
    "rewrite": ({**FILES, ".htaccess": FRONT_RULE}, "", "/index.php", True, REQUESTS),
}
CASES = [pytest.param(name, req, id=f"{name}:{req[0]} {req[1]}")
         for name, site in sorted(SITES.items()) for req in site[4]]


@dataclass
class Pair:
    name: str
    root: Path
    apache: str
    nginx: str


@pytest.fixture(scope="module")
def pair(request: pytest.FixtureRequest, apache_binary: object, nginx_binary: object,
         php_fpm_binary: Path) -> Iterator[Pair]:
    name = request.param
    root = make_docroot(prefix=f"confmig-php-fallback-{name}-", files=SITES[name][0])
    try:
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=True))
        with contextlib.ExitStack() as stack:
            for target in (setup.original, setup.converted):
                stack.callback(target.stop)
                target.start()
            yield Pair(name, root, setup.original.base_url, setup.converted.base_url)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _ask(base: str, method: str, path: str, headers: dict[str, str] | None = None
         ) -> tuple[int, list[str], bytes]:
    body = b"a=1" if method == "POST" else None
    headers = {**(headers or {}),
               **({"Content-Type": "application/x-www-form-urlencoded"} if body else {})}
    got = http_get(base, path, headers, method, body=body)
    return got.status, got.body.decode("utf-8", errors="replace").splitlines(), got.body


@pytest.mark.parametrize(("pair", "req"), CASES, indirect=["pair"])
def test_the_script_sees_what_apache_hands_it(pair: Pair, req: tuple[str, str]) -> None:
    _files, prefix, script, redirected, _requests = SITES[pair.name]
    method, rest = req
    path = prefix + rest
    a_status, a_lines, a_body = _ask(pair.apache, method, path)
    b_status, _b_lines, b_body = _ask(pair.nginx, method, path)
    # what Apache hands the script (the case is what it claims to be)
    assert a_status == 200, (path, a_lines)
    query = urlsplit(path).query
    for line in [f"SCRIPT_NAME={script}", "PATH_INFO (unset)", f"REQUEST_URI={path}",
                 f"QUERY_STRING={query}", f"REQUEST_METHOD={method}"]:
        assert line in a_lines, (path, line, a_lines)
    redirect = [line for line in a_lines if line.startswith("REDIRECT_")]
    if redirected:
        expected = ["REDIRECT_STATUS=200", f"REDIRECT_URL={unquote(urlsplit(path).path)}"]
        expected += [f"REDIRECT_QUERY_STRING={query}"] if query else []
        assert sorted(redirect) == sorted(expected), (path, a_lines)
    else:
        assert redirect == [], (path, a_lines)  # mod_dir's fast redirect
    # and nginx hands it the same
    assert b_status == a_status, (path, b_status)
    assert b_body == a_body, (path, a_body, b_body)


@pytest.mark.parametrize("pair", ["fallback-env-below"], indirect=True)
@pytest.mark.parametrize(("headers", "expected"), [
    ({}, "HTTP_AUTHORIZATION="), ({"Authorization": "Basic dTpw"},
                                  "HTTP_AUTHORIZATION=Basic dTpw")])
@pytest.mark.parametrize("path", ["/d/slug", "/d/e/slug/x", "/d/e/"])
def test_the_first_pass_variables_stay_theirs(pair: Pair, path: str, headers: dict[str, str],
                                              expected: str) -> None:
    a_status, a_lines, a_body = _ask(pair.apache, "GET", path, headers)
    b_status, _b_lines, b_body = _ask(pair.nginx, "GET", path, headers)
    assert a_status == 200 and "SCRIPT_NAME=/index.php" in a_lines, (path, a_lines)
    assert expected in a_lines, (path, a_lines)
    assert not [line for line in a_lines if line.startswith("REDIRECT_")], (path, a_lines)
    assert (b_status, b_body) == (a_status, a_body), (path, a_body, b_body)


@pytest.mark.parametrize("pair", sorted(SITES), indirect=True)
def test_verify_finds_no_difference(pair: Pair) -> None:
    """``verify --to nginx --php-fpm``: every probe of the site (its files, misses, the
    PHP probes with PATH_INFO, a query and a login) answered alike, nothing announced."""
    report = verify(VerifyRequest(target="nginx", docroot=pair.root, php_fpm=True,
                                  max_requests=600, timeout=300))
    assert report.exit_code == 0, report.summary()
    assert not report.differing, report.summary()
    assert report.sent >= 20, report.summary()


def test_only_a_fallback_records_its_redirect() -> None:
    """The fast-redirect bookkeeping is emitted for FallbackResource only: a rewrite front
    controller's output does not change."""
    outputs = {}
    for name in ("fallback-root", "rewrite"):
        root = make_docroot(prefix="confmig-php-fallback-out-", files=SITES[name][0])
        try:
            result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root),
                                              "--php-fpm", "127.0.0.1:9"])
        finally:
            shutil.rmtree(root, ignore_errors=True)
        assert result.exit_code == 0, result.output
        outputs[name] = result.stdout
    assert 'set $confmig_php_fast "$uri>/index.php";' in outputs["fallback-root"]
    assert "confmig_php_fast" not in outputs["rewrite"]
