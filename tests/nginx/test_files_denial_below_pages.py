"""A missing name a ``<FilesMatch>`` denial matches, below a directory it does not match
(``/d/missing.sql/x``): Apache's walk stops at that name and the section answers (403, or
the status its access control gives).  ``test_files_denial_below.py`` holds the plain case;
this file the three that stayed nginx's 404 (issue 12):

* an ``ErrorDocument 404`` in force (nginx's 404 went to the error document's page), with an
  ``ErrorDocument`` for the section's status too: Apache sends that page with its status;
* sections answering with different statuses (``Require all denied``: 403; ``Require
  valid-user`` with no ``AuthType``: 500) — each name gets its own section's status;
* ``--php-fpm`` (both servers passing ``.php`` to one php-fpm), also for a script's name
  below the missing one (``/d/missing.sql/x.php``).

Real Apache and real nginx answer the same requests; the status, and the body where Apache
sends an error document's page.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from confmig.servers import http_get, make_docroot
from confmig.verify import VerifyRequest
from confmig.verify.nginx import prepare
from tests.nginx.test_files_denial_below import MORE_BELOW, NOT_BELOW
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

PAGES = "ErrorDocument 404 /nf.html\nErrorDocument 403 /forbidden.html\n"
#: a second section with another status: Require without AuthType is Apache's 500
BAK = '<FilesMatch "\\.bak$">\nRequire valid-user\n</FilesMatch>\n'
PAGE_FILES = {"nf.html": "not found page\n", "forbidden.html": "forbidden page\n",
              "error.html": "server error page\n", "d/x.sql.php": "<?php echo 'sql php';\n"}
#: variant → (the root .htaccess, php-fpm)
VARIANTS = {
    "pages": (DENIAL + PAGES, False),
    "statuses": (DENIAL + BAK, False),
    "statuses-pages": (DENIAL + BAK + PAGES + "ErrorDocument 500 /error.html\n", False),
    "php": (DENIAL, True),
    "php-pages": (DENIAL + PAGES, True),
}
#: where Apache's walk stops at a missing name the .bak section matches (500), or at a
#: .sql name before one (403)
BAK_BELOW = {"/d/missing.bak/x": 500, "/d/e/missing.bak/x/y": 500,
             "/a.sql/missing.bak/x": 500, "/d/missing.bak/y.sql/x": 500,
             "/d/missing.sql/y.bak/x": 403, "/d/e/f/missing.bak/": 500}
#: a script's name after the missing name: the walk stops before it
PHP_BELOW = ["/d/missing.sql/x.php", "/d/e/missing.sql/y/x.php", "/d/missing.sql/x.php/i"]
PHP_OTHERS = ["/d/x.sql.php", "/d/missing.php", "/a.sql/missing.php", "/d/missing/x.php"]


@dataclass
class Site:
    variant: str
    apache: str
    nginx: str

    def ask(self, path: str) -> tuple[object, object]:
        return http_get(self.apache, path, {}), http_get(self.nginx, path, {})


@pytest.fixture(scope="module", params=list(VARIANTS))
def site(request: pytest.FixtureRequest, apache_binary: object,
         nginx_binary: object) -> Iterator[Site]:
    htaccess, php = VARIANTS[request.param]
    if php:
        request.getfixturevalue("php_fpm_binary")
    root: Path = make_docroot(prefix="confmig-files-pages-", files={
        **FILES, **PAGE_FILES, ".htaccess": htaccess})
    os.symlink(root / "a.sql" / "c.txt", root / "link.sql")
    os.symlink(root / "a.sql", root / "ldir.sql")
    try:
        setup = prepare(VerifyRequest(target="nginx", docroot=root, php_fpm=php))
        try:
            for target in (setup.original, setup.converted):
                target.start()
            yield Site(request.param, setup.original.base_url, setup.converted.base_url)
        finally:
            for target in (setup.converted, setup.original):
                target.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _alike(site: Site, path: str, status: int | None = None) -> None:
    a, b = site.ask(path)
    if status is not None:
        assert a.status == status, (path, a.status)  # the case is what it claims to be
    assert b.status == a.status, (path, a.status, b.status)
    if a.status == 200 or (a.status in (403, 404, 500) and "pages" in site.variant):
        assert b.body == a.body, (path, a.status, a.body, b.body)


@pytest.mark.parametrize("path", [*BELOW, *MORE_BELOW])
def test_a_missing_matching_name_below_a_directory(site: Site, path: str) -> None:
    _alike(site, path, 403)


@pytest.mark.parametrize(("path", "status"), BAK_BELOW.items())
def test_each_section_its_own_status(site: Site, path: str, status: int) -> None:
    # (without the .bak section its names are no section's: only alike)
    _alike(site, path, status if site.variant.startswith("statuses") else None)


@pytest.mark.parametrize("path", PHP_BELOW)
def test_a_script_below_a_missing_matching_name(site: Site, path: str) -> None:
    _alike(site, path, 403)


@pytest.mark.parametrize("path", [*DENIED, *AFTER_FILE, *OTHERS, *NOT_BELOW, *PHP_OTHERS,
                                  *(p for p in MISSING if not p.endswith(".php")
                                    and not p.endswith(".php/x"))])
def test_the_other_answers_are_apaches(site: Site, path: str) -> None:
    _alike(site, path)
