"""A SetHandler no module provides (issue 12): Drupal's files directories set
``Drupal_Security_Do_Not_Remove_See_SA_2006_006`` (and, in a ``<Files *>``, ``…2013_003``)
so that no script runs there.  Every module declines such a name and Apache's default
handler answers, as for ``SetHandler default-handler``: a file as it is (a ``.php`` too, its
source), a missing name 404, a directory without an index file 404 (not a listing or a
403), the index where there is one; with ``--php-fpm``'s ``<FilesMatch \\.php$>`` handler, a
directory-level name loses to it (the script runs) and a ``<Files *>`` one wins (the source).
nginx answers the same, nothing announced.  A name that looks like a module's stays
announced.  Real Apache against real nginx (and php-fpm)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare
from tests.corpus import CORPUS

pytestmark = [pytest.mark.apache]

SCRIPT = "<?php echo 'ran';\n"
FILES = {"index.php": SCRIPT, "files/x.php": SCRIPT, "files/a.txt": "a\n",
         "files/s.html": "<p>s\n", "files/i.png": "png", "files/sub/b.txt": "b\n",
         "files/idx/index.html": "<p>i\n"}
PATHS = ["/files/x.php", "/files/a.txt", "/files/s.html", "/files/i.png", "/files/missing",
         "/files/missing.php", "/files/sub/", "/files/sub", "/files/idx/", "/files/",
         "/files/x.php/extra", "/files/a.txt/extra"]
DIRECTORY_ONLY = "SetHandler Drupal_Security_Do_Not_Remove_See_SA_2006_006\nOptions -Indexes\n"


def drupal_files() -> str:
    text = CORPUS / "drupal/generated/public-files.htaccess"
    if not text.is_file():
        pytest.skip("../shared/corpus is not there")
    return text.read_text()


@contextlib.contextmanager
def site(htaccess: str) -> Iterator[Path]:
    root = make_docroot(prefix="confmig-ngunk-", files={**FILES, "files/.htaccess": htaccess})
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def check(root: Path, php: bool) -> dict[str, int]:
    """Convert (nothing about handlers announced), then ask Apache and nginx every path:
    the same status, body and type; verify finds no difference.  The statuses, by path."""
    more = ["--php-fpm", "127.0.0.1:9000"] if php else []
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root), *more])
    assert "Handler" not in result.stderr, result.stderr
    statuses = {}
    setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=php))
    with contextlib.ExitStack() as stack:
        for target in (setup.original, setup.converted):
            stack.callback(target.stop)
            target.start()
        for path in PATHS:
            a = http_get(setup.original.base_url, path)
            b = http_get(setup.converted.base_url, path)
            assert a.status == b.status, (path, a.status, b.status)
            if a.status == 200:
                assert a.body == b.body, (path, a.body, b.body)
                assert a.headers.get("Content-Type") == b.headers.get("Content-Type"), path
            statuses[path] = a.status
    report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=php,
                                  max_requests=1000, timeout=300))
    assert report.exit_code == 0 and not report.differing, report.summary()
    return statuses


@pytest.mark.parametrize("which", ["drupal", "directory-only"])
def test_unknown_handler_is_the_default_handler(which: str, apache_binary: object,
                                                nginx_binary: object) -> None:
    text = drupal_files() if which == "drupal" else DIRECTORY_ONLY
    with site(text) as root:
        statuses = check(root, php=False)
    assert statuses["/files/sub/"] == statuses["/files/"] == 404  # not 403: no listing asked
    assert statuses["/files/x.php"] == 200 and statuses["/files/idx/"] == 200


@pytest.mark.parametrize("which", ["drupal", "directory-only"])
def test_unknown_handler_with_php_fpm(which: str, apache_binary: object, nginx_binary: object,
                                      php_fpm_binary: Path) -> None:
    text = drupal_files() if which == "drupal" else DIRECTORY_ONLY
    with site(text) as root:
        statuses = check(root, php=True)
    # the <Files *> handler wins over the server's PHP <FilesMatch>: the source, no PATH_INFO;
    # a directory-level name loses to it: the script runs, with PATH_INFO
    assert statuses["/files/x.php/extra"] == (404 if which == "drupal" else 200)


@pytest.mark.parametrize("name", ["cgi-script", "my-perl-script", "text/x-thing",
                                  "server-status"])
def test_a_module_like_handler_stays_announced(name: str) -> None:
    with site(f"SetHandler {name}\n") as root:
        result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    assert any(line.startswith("untranslatable:") and "SetHandler" in line
               for line in result.stderr.splitlines()), result.stderr
