"""h5bp's hidden-file rule (``-d [OR] -f`` + ``RewriteRule "(^|/)\\." - [F]``) with
``--php-fpm``: in force only in a nested location for the URLs its pattern can match, with
its own PHP location, as without ``--php-fpm`` (``test_pattern_rule_candidates.py``).

With ``--php-fpm`` the rule stayed in the scope's location, so its stat ran for every
request, a static file's too (issue 12).  Real Apache and real nginx, both passing ``.php``
to one real php-fpm, answer the same requests: dot files and directories, scripts among
them (``/.hidden.php``, ``/.hiddendir/s.php``, a missing one), the ``.well-known``
exception, a front controller after the rule, a ``<FilesMatch>`` location.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import NginxOptions, convert_docroot
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest
from confmig.verify.nginx import prepare
from tests.nginx.test_pattern_rule_candidates import FILES, PATHS

pytestmark = [pytest.mark.apache]

SCRIPTS = {".hidden.php": "<?php echo 'hidden script';\n", "s.php": "<?php echo 'script';\n",
           ".hiddendir/s.php": "<?php echo 'hidden dir script';\n",
           "sub/t.php": "<?php echo 't';\n",
           ".well-known/acme-challenge/w.php": "<?php echo 'well known';\n"}
SCRIPT_PATHS = ["/s.php", "/.hidden.php", "/.hiddendir/s.php", "/sub/t.php", "/.missing.php",
                "/sub/.missing.php", "/.well-known/acme-challenge/w.php", "/s.php/.x",
                "/.hidden.php/x", "/.hiddendir/missing.php"]
#: the rule's regex location (h5bp's pattern, per-directory in the document root)
RULE_LOCATION = 'location ~ "(?s)(?:((?<=^/)|/)\\.)" {'


def _root() -> Path:
    return make_docroot(prefix="confmig-pattern-rule-php-", files={**FILES, **SCRIPTS})


def test_the_root_location_runs_no_stat_of_the_rule() -> None:
    root = _root()
    try:
        body = convert_docroot(root, None, NginxOptions(php_fpm="127.0.0.1:9")).output.body
    finally:
        shutil.rmtree(root, ignore_errors=True)
    start = body.index("location / {")
    own = body[start:].split("\n", 1)[1]
    own = own[:own.index("location ")]
    assert "-e $request_filename" not in own and "return 403" not in own, own
    rule = body[body.index(RULE_LOCATION):]
    assert "-e $" in rule[:rule.index("location ~ [^/]\\.php(/|$) {")], rule
    # the rule's location hands .php over too, with the rule's test on the script's file
    assert "fastcgi_pass" in rule


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


@pytest.mark.parametrize("path", [*PATHS, *SCRIPT_PATHS])
def test_apache_and_nginx_answer_alike(servers: tuple[str, str], path: str) -> None:
    a, b = (http_get(base, path, {}) for base in servers)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status == 200:
        assert a.body == b.body, path
    assert a.headers.get("X-Txt") == b.headers.get("X-Txt"), path


def test_the_rule_answers_where_it_should(servers: tuple[str, str]) -> None:
    apache = servers[0]
    assert [http_get(apache, p, {}).status for p in (
        "/.hidden.php", "/.hiddendir/s.php", "/s.php", "/.well-known/acme-challenge/w.php")] \
        == [403, 403, 200, 200]
