"""``verify --to nginx --php-fpm``: real Apache (mod_proxy_fcgi) and real nginx (the converted
``fastcgi_pass``) hand ``.php`` to one real php-fpm running a probe that prints what the
application sees — REQUEST_URI, SCRIPT_NAME, SCRIPT_FILENAME, PATH_INFO, QUERY_STRING,
HTTP_AUTHORIZATION, REDIRECT_* — and the bodies are compared.  On the WordPress, Laravel and
Drupal ``.htaccess`` of ../shared/corpus; a wrong FastCGI parameter must make it fail."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.convert.nginx.php as php
from confmig.cli import app
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare
from tests.corpus import CORPUS, needs_corpus
from tests.verify.sites import site_files

pytestmark = [pytest.mark.apache, needs_corpus, pytest.mark.corpus]

FRAMEWORKS = {
    "wordpress": "wordpress/generated/.htaccess",
    "laravel": "laravel/public/.htaccess",
    "drupal": "drupal/assets/scaffold/files/htaccess",
    # a rewrite of "/" to index.php: an internal redirect for Apache (REDIRECT_URL=/), not
    # DirectoryIndex's
    "cakephp": "cakephp/webroot/.htaccess",
}
#: Scripts besides the corpus site's own (index.php): one more at the top, two below.
SCRIPTS = {"info.php": "<?php phpinfo();\n", "sub/x.php": "<?php echo 'x';\n",
           "sub/index.php": "<?php echo 'sub';\n"}


@contextlib.contextmanager
def framework_site(name: str) -> Iterator[Path]:
    text = (CORPUS / FRAMEWORKS[name]).read_text(encoding="utf-8", errors="surrogateescape")
    root = make_docroot(prefix=f"confmig-php-{name}-", files={**site_files("", text),
                                                               **SCRIPTS})
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_verify(root: Path) -> object:
    return verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                max_requests=1500, timeout=300))


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_framework_passes_with_php_fpm(name: str, apache_binary: object, nginx_binary: object,
                                       php_fpm_binary: Path) -> None:
    with framework_site(name) as root:
        report = run_verify(root)
    assert report.exit_code == 0, report.summary()
    php_probes = [d for d in report.differing if d.probe.why.startswith("PHP")]
    assert report.sent >= 20, report.summary()
    if name in ("wordpress", "cakephp"):  # nothing differs, not even announced
        assert not report.differing, report.summary()
    if name == "laravel":  # only the Vary: Authorization announced for the header copy
        assert all({f.field for f in d.diffs} == {"vary"} for d in php_probes), \
            [(d.probe.describe(), d.diffs) for d in php_probes]


def test_what_the_script_sees(apache_binary: object, nginx_binary: object,
                              php_fpm_binary: Path) -> None:
    """The probe's own lines on both servers, for a front controller's internal redirect,
    PATH_INFO and a login (WordPress hands Authorization over with [E=…])."""
    with framework_site("wordpress") as root:
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=True))
        with contextlib.ExitStack() as stack:
            for target in (setup.original, setup.converted):
                stack.callback(target.stop)
                target.start()
            login = {"Authorization": "Basic dTpw"}
            for path, headers, expected in [
                ("/blog/post?a=1", login, ["SCRIPT_NAME=/index.php", "REDIRECT_URL=/blog/post",
                                           "REDIRECT_QUERY_STRING=a=1", "REDIRECT_STATUS=200",
                                           "HTTP_AUTHORIZATION=Basic dTpw",
                                           "REDIRECT_HTTP_AUTHORIZATION=Basic dTpw"]),
                ("/blog/post", {}, ["REDIRECT_HTTP_AUTHORIZATION=", "HTTP_AUTHORIZATION="]),
                ("/sub/x.php/a%20b?q", {}, ["SCRIPT_NAME=/sub/x.php", "PATH_INFO=/a b",
                                           "SCRIPT_FILENAME=$DOCROOT/sub/x.php",
                                           "QUERY_STRING=q"]),
                ("/sub/", {}, ["SCRIPT_NAME=/sub/index.php"]),
            ]:
                a = http_get(setup.original.base_url, path, headers)
                b = http_get(setup.converted.base_url, path, headers)
                lines = a.body.decode().splitlines()
                assert a.status == b.status == 200, (path, a.body, b.body)
                assert all(e in lines for e in expected), (path, lines)
                assert a.body == b.body, (path, a.body, b.body)
            direct = http_get(setup.original.base_url, "/sub/").body.decode()
            assert "REDIRECT_STATUS" not in direct  # DirectoryIndex is no redirect for Apache


def test_php_probes_come_with_the_others(apache_binary: object, nginx_binary: object,
                                         php_fpm_binary: Path) -> None:
    """--php-fpm adds its requests to the target's own (gzip, logins), not instead of them."""
    root = make_docroot(files={".htaccess": "AddOutputFilterByType DEFLATE text/html\n",
                               "index.html": "<p>x</p>\n" * 50, "index.php": "<?php\n"})
    try:
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=True))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert any(("Accept-Encoding", "gzip") in p.headers for p in setup.probes)
    assert any(p.why.startswith("PHP") for p in setup.probes)


@pytest.mark.parametrize(("param", "wrong"), [
    # nginx's classic PATH_INFO mistake: try_files has changed $uri by then (trac #321)
    ("PATH_INFO", "$fastcgi_path_info if_not_empty"),
    ("REQUEST_URI", "$uri$is_args$args"),
])
def test_a_wrong_fastcgi_param_fails(param: str, wrong: str, monkeypatch: pytest.MonkeyPatch,
                                     apache_binary: object, nginx_binary: object,
                                     php_fpm_binary: Path) -> None:
    monkeypatch.setattr(php, "PARAMS", [(n, wrong if n == param else v)
                                        for n, v in php.PARAMS])
    with framework_site("wordpress") as root:
        report = run_verify(root)
    assert report.exit_code == 1, report.summary()
    bodies = [d for d in report.differing if not d.announced
              and any(f.field == "body" for f in d.diffs)]
    assert bodies, report.summary()


def test_every_corpus_htaccess_with_php_fpm(apache_binary: object, nginx_binary: object,
                                            php_fpm_binary: Path) -> None:
    """The site of tests/nginx/test_verify_nginx.py (a directory per corpus file), every
    script handed to php-fpm on both sides."""
    from tests.verify.sites import corpus_site

    root, used = corpus_site()
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                      max_requests=4000, timeout=600))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert len(used) >= 30
    assert report.exit_code == 0, report.summary()
    assert report.sent >= 2000, report.summary()


def test_every_corpus_htaccess_as_vhosts_with_php_fpm(apache_binary: object,
                                                      nginx_binary: object,
                                                      php_fpm_binary: Path) -> None:
    """--config: each corpus file as the root of a <VirtualHost> of its own (WordPress
    multisite's rules ``break`` before the hand-over in the root's PHP location)."""
    from tests.verify.sites import corpus_vhosts

    parent, config, used = corpus_vhosts()
    try:
        report = verify(VerifyRequest(target="nginx", config=config, php_fpm=True,
                                      max_requests=4000, timeout=600))
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    assert len(used) >= 30
    assert report.exit_code == 0, report.summary()
    assert report.sent >= 2500, report.summary()


def test_cli(apache_binary: object, nginx_binary: object, php_fpm_binary: Path) -> None:
    with framework_site("wordpress") as root:
        result = CliRunner().invoke(app, ["verify", "--to", "nginx", "--php-fpm", str(root),
                                          "--format", "json"])
    assert "Traceback" not in result.output, result.output
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["ok"], report["summary"]
    assert report["compared"] >= 20
