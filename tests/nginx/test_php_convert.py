"""``convert --to nginx --php-fpm ADDR``: ``.php`` handed to php-fpm in every location that can
meet a script (a scope of its own, a ``<FilesMatch>``, an exact ``index.php``), the output
accepted by real nginx; without it, the site's PHP is announced."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert.nginx import NginxOptions, convert_docroot
from confmig.servers import make_docroot, nginx_config_test
from tests.corpus import CORPUS, needs_corpus

WORDPRESS = CORPUS / "wordpress/generated/.htaccess"


@pytest.fixture
def site() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-phpconv-", files={
        ".htaccess": "RewriteEngine On\n"
                     "RewriteCond %{HTTP:Authorization} .\n"
                     "RewriteRule .* - [E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]\n"
                     "RewriteCond %{REQUEST_FILENAME} !-f\n"
                     "RewriteRule ^api/(.*)$ api.php?route=$1 [QSA,L]\n"
                     "AddHandler application/x-httpd-php .php\n"
                     "<FilesMatch \"\\.php$\">\n    Header set X-Script yes\n</FilesMatch>\n",
        "index.php": "<?php\n", "api.php": "<?php\n",
        "admin/.htaccess": "Header set X-Admin 1\n", "admin/index.php": "<?php\n"})
    yield root
    shutil.rmtree(root, ignore_errors=True)


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


def test_every_location_hands_php_over_and_nginx_accepts_it(site: Path,
                                                            nginx_binary: object) -> None:
    conversion = convert_docroot(site, None, NginxOptions(php_fpm="127.0.0.1:9123"))
    body = conversion.output.body
    # the root's location and admin/'s ^~ location each have one, and so has the
    # <FilesMatch> location inside each (admin/ inherits it), and the nested location of
    # each of those four for a name the <Files> denials can match (Debian's ^\.ht)
    assert body.count("location ~ [^/]\\.php(/|$) {") == 8, body
    assert body.count("fastcgi_pass 127.0.0.1:9123;") == 8, body
    assert "fastcgi_param PATH_INFO $confmig_php_path_info if_not_empty;" in body
    assert "fastcgi_param HTTP_AUTHORIZATION $http_authorization if_not_empty;" in body
    assert "REDIRECT_HTTP_AUTHORIZATION" in body
    # AddHandler .php is what --php-fpm translates: no "served as it is" note for it
    assert not [n for n in conversion.result.notes if n.directive == "AddHandler"
                and "served as it is" in n.reason]
    ok, message = nginx_config_test(body, http_config=conversion.output.http)
    assert ok, message


def test_cli_prints_it(site: Path) -> None:
    code, out, err = cli(str(site), "--php-fpm", "unix:/run/php/php8.2-fpm.sock")
    assert code == 1, err  # the plan still announces the AddHandler line
    assert "fastcgi_pass unix:/run/php/php8.2-fpm.sock;" in out
    assert "without --php-fpm" not in err


@pytest.mark.parametrize("address", ["", "127.0.0.1", "a b:9000", "127.0.0.1:9000;x",
                                     "unix:relative.sock"])
def test_bad_address_is_one_line_exit_2(site: Path, address: str) -> None:
    code, out, err = cli(str(site), "--php-fpm", address)
    assert code == 2 and not out
    assert err.count("\n") == 1 and "--php-fpm" in err, err


def test_without_php_fpm_the_php_is_announced(site: Path) -> None:
    code, out, err = cli(str(site))
    assert code == 1, err
    assert "fastcgi_pass" not in out
    assert "without --php-fpm ADDR nginx serves .php files as they are" in err


@needs_corpus
def test_wordpress_exact_index_php(nginx_binary: object) -> None:
    """WordPress's ``^index\\.php$ - [L]`` is an exact location: it hands the script over
    itself (an exact location cannot hold a nested one)."""
    root = make_docroot(files={".htaccess": WORDPRESS.read_text(), "index.php": "<?php\n"})
    try:
        conversion = convert_docroot(root, None, NginxOptions(php_fpm="127.0.0.1:9000"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    body = conversion.output.body
    exact = body.split('location = "/index.php" {', 1)[1].split("\n        }", 1)[0]
    assert "fastcgi_pass 127.0.0.1:9000;" in exact
    ok, message = nginx_config_test(body, http_config=conversion.output.http)
    assert ok, message
    assert not conversion.result.untranslatable
