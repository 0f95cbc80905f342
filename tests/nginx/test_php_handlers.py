"""Handlers in the site plan with ``--php-fpm`` (issue 12): ``SetHandler "proxy:fcgi://…"`` in a
``<FilesMatch>``, ``AddHandler … .php``, ``SetHandler none``/``default-handler`` switching PHP
off in an uploads directory, ``RemoveHandler`` — nginx hands exactly the files to php-fpm that
Apache does, checked with ``verify --to nginx --php-fpm`` on real Apache (mod_proxy_fcgi, the
harness's ``<FilesMatch ".+\\.php$">`` as Debian's php-fpm configuration), real nginx and one
real php-fpm.  Other handlers stay announced."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.verify.nginx as verify_nginx
from confmig.cli import app
from confmig.servers import free_port, http_get, make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare

pytestmark = [pytest.mark.apache]

SCRIPT = "<?php echo 'ran';\n"
PORT = "@PORT@"  # the harness's php-fpm port, in a site's own proxy:fcgi handler


@pytest.fixture
def fpm_port(monkeypatch: pytest.MonkeyPatch) -> int:
    """The port verify's php-fpm gets (a site's ``proxy:fcgi://`` handler names it)."""
    port = free_port()
    monkeypatch.setattr(verify_nginx, "free_port", lambda: port)
    return port


@contextlib.contextmanager
def site(files: dict[str, str], port: int | None = None) -> Iterator[Path]:
    text = {k: v.replace(PORT, str(port)) for k, v in files.items()}
    root = make_docroot(prefix="confmig-phph-", files={"index.php": SCRIPT, **text})
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def both(root: Path) -> Iterator[tuple[str, str]]:
    """Apache and nginx (and php-fpm) for *root*, as verify --php-fpm runs them."""
    setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=True))
    with contextlib.ExitStack() as stack:
        for target in (setup.original, setup.converted):
            stack.callback(target.stop)
            target.start()
        yield setup.original.base_url, setup.converted.base_url


def check(root: Path) -> object:
    """verify --php-fpm: no difference at all, and nothing about handlers announced."""
    report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                  max_requests=1000, timeout=300))
    notes = [str(n) for n in report.conversion.untranslatable]
    assert not [n for n in notes if "Handler" in n], notes
    assert report.exit_code == 0, report.summary()
    assert not report.differing, report.summary()
    return report


def ran(body: bytes) -> bool:
    """php-fpm ran the probe (verify's prepend), not a file sent as it is."""
    return b"SCRIPT_NAME=" in body


def test_filesmatch_sethandler_proxy_fcgi(apache_binary: object, nginx_binary: object,
                                          php_fpm_binary: Path, fpm_port: int) -> None:
    """The section's every name goes to php-fpm (x.phtml too: php-fpm refuses it, on both)."""
    files = {".htaccess": '<FilesMatch "\\.(php|phtml)$">\n'
                          f'    SetHandler "proxy:fcgi://127.0.0.1:{PORT}"\n</FilesMatch>\n',
             "sub/x.php": SCRIPT, "style.css": "a{}\n", "x.phtml": SCRIPT}
    with site(files, fpm_port) as root:
        with both(root) as (apache, nginx):
            a, b = http_get(apache, "/x.phtml"), http_get(nginx, "/x.phtml")
            assert a.status == b.status == 403 and a.body == b.body, (a.body, b.body)
        check(root)


def test_addhandler_php(apache_binary: object, nginx_binary: object,
                        php_fpm_binary: Path) -> None:
    files = {".htaccess": "AddHandler application/x-httpd-php .php\n",
             "sub/x.php": SCRIPT, "sub/.htaccess": "RemoveHandler .php\n"}
    with site(files) as root:
        check(root)


def test_a_php_jpg_under_addhandler(apache_binary: object, nginx_binary: object,
                                    php_fpm_binary: Path, fpm_port: int) -> None:
    """mod_mime gives a.php.jpg the handler of .php (every extension counts): real Apache
    hands it to php-fpm (which refuses it: security.limit_extensions), nginx serves it as a
    file — announced, never silent.  Under mod_php's handler name, which runs nothing with
    php-fpm, both send it as it is."""
    files = {".htaccess": f'AddHandler "proxy:fcgi://127.0.0.1:{PORT}" .php\n',
             "a.php.jpg": SCRIPT}
    with site(files, fpm_port) as root:
        with both(root) as (apache, nginx):
            a = http_get(apache, "/a.php.jpg")
            b = http_get(nginx, "/a.php.jpg")
            assert a.status == 403 and b"Access denied" in a.body, (a.status, a.body)
            assert b.status == 200 and b.body == SCRIPT.encode(), (b.status, b.body)
        result = CliRunner().invoke(app, ["convert", "--to", "nginx", "--php-fpm",
                                          "127.0.0.1:9000", str(root)])
        assert result.exit_code == 1 and "a.php.jpg" in result.stderr, result.output
    files = {".htaccess": "AddHandler application/x-httpd-php .php\n", "a.php.jpg": SCRIPT}
    with site(files) as root, both(root) as (apache, nginx):
        for url in ("/a.php.jpg", "/index.php"):
            a, b = http_get(apache, url), http_get(nginx, url)
            assert a.status == b.status == 200 and a.body == b.body, (url, a.body, b.body)
            assert ran(a.body) == (url == "/index.php"), (url, a.body)


@pytest.mark.parametrize("switch", [
    '<FilesMatch "\\.php$">\n    SetHandler none\n</FilesMatch>\n',
    '<FilesMatch "\\.php$">\n    SetHandler default-handler\n</FilesMatch>\n',
    '<Files "x.php">\n    SetHandler default-handler\n</Files>\n',
])
def test_uploads_switch_php_off(switch: str, apache_binary: object, nginx_binary: object,
                                php_fpm_binary: Path) -> None:
    """A <Files> section of the uploads directory replaces the server's PHP handler: Apache
    sends uploads/x.php as it is (and answers 404 for it with PATH_INFO); nginx too."""
    files = {"uploads/.htaccess": switch, "uploads/x.php": SCRIPT, "uploads/a.txt": "a\n"}
    with site(files) as root:
        with both(root) as (apache, nginx):
            for url in ("/uploads/x.php", "/uploads/x.php/info", "/index.php"):
                a, b = http_get(apache, url), http_get(nginx, url)
                assert a.status == b.status, (url, a.status, b.status, b.body)
                if a.status == 200:  # (an error page is each server's own)
                    assert a.body == b.body, (url, a.body, b.body)
            assert http_get(apache, "/uploads/x.php").body == SCRIPT.encode()
            assert http_get(apache, "/uploads/x.php/info").status == 404
            assert ran(http_get(apache, "/index.php").body)
        check(root)


def test_files_star_takes_the_directory_too(apache_binary: object, nginx_binary: object,
                                            php_fpm_binary: Path) -> None:
    """``<Files *>`` also matches the directory itself (the empty name after its slash): the
    file handler there makes Apache answer 404 for the listing — and nginx (its ``index``
    ends with a 404 location); the script is still sent as it is on both."""
    files = {"uploads/.htaccess": "<Files *>\n    SetHandler default-handler\n</Files>\n",
             "uploads/x.php": SCRIPT, "uploads/a.txt": "a\n"}
    with site(files) as root:
        with both(root) as (apache, nginx):
            a, b = http_get(apache, "/uploads/x.php"), http_get(nginx, "/uploads/x.php")
            assert a.status == b.status == 200 and a.body == b.body == SCRIPT.encode()
            assert http_get(apache, "/uploads/").status == http_get(nginx, "/uploads/").status \
                == 404
        report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                      max_requests=1000, timeout=300))
    assert report.exit_code == 0, report.summary()
    assert not any("default-handler" in str(n) for n in report.conversion.untranslatable)
    assert not report.differing, report.summary()


def test_sethandler_none_alone_does_not_switch_php_off(apache_binary: object,
                                                       nginx_binary: object,
                                                       php_fpm_binary: Path) -> None:
    """``SetHandler none`` (or default-handler) for the directory does not beat a <Files>
    section's handler (the server's PHP one): Apache still runs uploads/x.php, and so does
    nginx."""
    files = {"uploads/.htaccess": "SetHandler none\n", "uploads/x.php": SCRIPT,
             "up2/.htaccess": "SetHandler default-handler\n", "up2/x.php": SCRIPT}
    with site(files) as root:
        with both(root) as (apache, nginx):
            for url in ("/uploads/x.php", "/up2/x.php"):
                a, b = http_get(apache, url), http_get(nginx, url)
                assert ran(a.body) and a.body == b.body, (url, a.body, b.body)
            # the file handler for the whole directory: Apache does not list it (404), nor
            # does nginx (its `index` ends with a 404 location)
            assert http_get(apache, "/up2/").status == http_get(nginx, "/up2/").status == 404
        report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                      max_requests=1000, timeout=300))
    notes = [str(n) for n in report.conversion.untranslatable]
    assert report.exit_code == 0, report.summary()
    # SetHandler none and default-handler are carried: nothing announced, nothing differs
    assert not [n for n in notes if "Handler" in n], notes
    assert not report.differing, report.summary()


def test_drupal_files_directory(apache_binary: object, nginx_binary: object,
                                php_fpm_binary: Path) -> None:
    """Drupal's files/.htaccess (``<Files *> SetHandler Drupal_Security_…``): Apache sends a
    script there as it is; nginx never runs it (a handler no module provides is the
    default handler's: nothing announced, tests/nginx/test_policy_unknown_handler.py)."""
    from tests.corpus import CORPUS

    text = CORPUS / "drupal/generated/public-files.htaccess"
    if not text.is_file():
        pytest.skip("../shared/corpus is not there")
    files = {"files/.htaccess": text.read_text(), "files/x.php": SCRIPT}
    with site(files) as root:
        with both(root) as (apache, nginx):
            a, b = http_get(apache, "/files/x.php"), http_get(nginx, "/files/x.php")
            assert a.status == b.status == 200 and a.body == b.body == SCRIPT.encode(), \
                (a.body, b.body)
        report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                      max_requests=1000, timeout=300))
        assert report.exit_code == 0 and not report.differing, report.summary()
        assert not any("drupal_security" in str(n).lower()
                       for n in report.conversion.untranslatable)


def test_without_php_fpm_handlers_are_announced() -> None:
    files = {".htaccess": "AddHandler application/x-httpd-php .php\n"
                          '<FilesMatch "\\.php$">\n    SetHandler "proxy:fcgi://127.0.0.1:9000"'
                          "\n</FilesMatch>\n"}
    with site(files) as root:
        plain = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
        fpm = CliRunner().invoke(app, ["convert", "--to", "nginx", "--php-fpm",
                                       "127.0.0.1:9000", str(root)])
    assert plain.exit_code == 1, plain.output
    assert "AddHandler" in plain.stderr and "SetHandler" in plain.stderr, plain.stderr
    assert fpm.exit_code == 0, fpm.output
    assert "fastcgi_pass 127.0.0.1:9000;" in fpm.stdout


@pytest.mark.parametrize("line", ["AddHandler cgi-script .cgi\n",
                                  "SetHandler server-status\n",
                                  "AddHandler type-map .var\n",
                                  'SetHandler "proxy:fcgi://127.0.0.1:9000"\n'])
def test_other_handlers_stay_announced(line: str) -> None:
    with site({".htaccess": line}) as root:
        result = CliRunner().invoke(app, ["convert", "--to", "nginx", "--php-fpm",
                                          "127.0.0.1:9000", str(root)])
    assert result.exit_code == 1, result.output
    assert "Handler" in result.stderr, result.stderr
