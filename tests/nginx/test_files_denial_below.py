"""A missing name a ``<FilesMatch>`` denial matches, below a directory it does not match
(``/d/missing.sql/x``), without a front controller: Apache's walk stops at that name and the
section denies it (403); nginx answered its own 404 (issue 12).  nginx's 404 for a URL the
sections' patterns can match now goes to a named location that tells the two apart
(``error_page 404``, only in the nested location for those URLs: nothing else pays), also
where an ``ErrorDocument 404`` is in force (``test_files_denial_below_pages.py`` holds the
error documents' pages, sections with different statuses and ``--php-fpm``).
Real Apache and real nginx answer the requests of ``test_files_denial_paths.py``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
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

#: more of the shape: deeper, a matching name below a matching directory, a directory
#: passed before a missing name the sections do not match
MORE_BELOW = ["/d/e/missing.sql/x.sql/y", "/a.sql/missing.sql/x", "/d/missing.sql/b.sql/x"]
NOT_BELOW = ["/a.sql/missing/x", "/d/e/missing/x.sql/y", "/missing/d/e.sql/x", "/d/e/f/x"]
PAGE = "ErrorDocument 404 /nf.html\n"


def _root(extra: str = "") -> Path:
    root = make_docroot(prefix="confmig-files-below-", files={
        **FILES, "nf.html": "not found page\n", ".htaccess": DENIAL + extra})
    os.symlink(root / "a.sql" / "c.txt", root / "link.sql")
    os.symlink(root / "a.sql", root / "ldir.sql")
    return root


@pytest.fixture(scope="module", params=["plain", "error-document"])
def servers(request: pytest.FixtureRequest, apache_binary: object,
            nginx_binary: object) -> Iterator[tuple[str, str, str]]:
    root = _root(PAGE if request.param == "error-document" else "")
    try:
        setup = prepare(VerifyRequest(target="nginx", docroot=root))
        try:
            for target in (setup.original, setup.converted):
                target.start()
            yield request.param, setup.original.base_url, setup.converted.base_url
        finally:
            for target in (setup.converted, setup.original):
                target.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _ask(servers: tuple[str, str, str], path: str) -> tuple[object, object]:
    _, apache, nginx = servers
    return http_get(apache, path, {}), http_get(nginx, path, {})


@pytest.mark.parametrize("path", [*BELOW, *MORE_BELOW])
def test_a_missing_matching_name_below_a_directory(servers: tuple[str, str, str],
                                                   path: str) -> None:
    a, b = _ask(servers, path)
    assert a.status == 403, (path, a.status)
    assert b.status == 403, (path, b.status)  # with an ErrorDocument 404 too


@pytest.mark.parametrize("path", [*AFTER_FILE, *MISSING, *OTHERS, *NOT_BELOW])
def test_the_other_answers_are_apaches(servers: tuple[str, str, str], path: str) -> None:
    a, b = _ask(servers, path)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status in (200, 404):
        assert a.body == b.body or (a.status == 404 and servers[0] == "plain"), path


@pytest.mark.parametrize("path", DENIED)
def test_denied_alike(servers: tuple[str, str, str], path: str) -> None:
    a, b = _ask(servers, path)
    assert (a.status, b.status) == (403, 403), path


def test_only_the_nested_location_sends_404_there() -> None:
    root = _root()
    try:
        body = convert_docroot(root).output.body
    finally:
        shutil.rmtree(root, ignore_errors=True)
    start = body.index("location / {")
    own = body[start:].split("\n", 1)[1]
    own = own[:own.index("location ")]
    assert "error_page 404" not in own, own
    nested = body[body.index("a name the <Files> denials can match"):]
    nested = nested[:nested.index("\n    }")]
    assert "error_page 404 = @confmig_below" in nested, nested
