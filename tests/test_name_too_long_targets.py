"""A name too long for the file system, on real Apache and on each target (issue 10: never
200 where Apache fails).  Apache answers 403 before any rule for a path segment over
NAME_MAX bytes in a directory that exists (the directory walk's lstat fails with
ENAMETOOLONG; a missing directory before it ends the walk instead) and for DocumentRoot +
URL-path over APR_PATH_MAX — with the server's defaults alone: the walk returns before it
sets the request's configuration, so no access file's ``Header always`` or ErrorDocument
applies (request.c).  A front controller's nginx server answered 200, the Flask module and
the model added the access files' headers and error page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.servers import Response, make_docroot
from tests.flask.pair import both as flask_pair
from tests.nginx.servers import both as nginx_pair

pytestmark = pytest.mark.apache

HTACCESS = """Header always set X-A 1
ErrorDocument 403 "custom403"
RewriteEngine On
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule . /index.html [L]
"""
FILES = {".htaccess": HTACCESS, "index.html": "<h1>front</h1>\n",
         "sub/page.html": "<p>p</p>\n", "sub/.htaccess": "Header always set X-B 2\n"}

# (URL-path, Apache's status): checked against real Apache below, not assumed
CASES = [
    ("/" + "a" * 256, 403),  # a segment of 256 bytes at the top
    ("/sub/" + "a" * 300, 403),  # in a directory that exists, with an access file
    ("/sub/" + "é" * 128, 403),  # 256 bytes, 128 characters: bytes count
    ("/" + "a" * 255, 200),  # NAME_MAX itself is a name: the front controller answers
    ("/missing/" + "a" * 300, 200),  # the walk ends at "missing": not stat'ed
    ("/sub/" + "b/" * 2100, 403),  # DocumentRoot + URL-path over APR_PATH_MAX
    ("/sub/page.html", 200),
    # the same names spelled otherwise: decoded and normalised before the walk
    ("/sub/" + "%61" * 300, 403), ("//sub//" + "a" * 300, 403),
    ("/sub/./" + "a" * 300, 403), ("/x/../sub/" + "a" * 300, 403),
    ("/sub%2f" + "a" * 300, 404),  # an encoded slash: 404 before anything (AllowEncodedSlashes)
]


@pytest.fixture(scope="module")
def site() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-long-", files=FILES)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _seen(response: Response) -> tuple[int, str | None, str | None, bool]:
    return (response.status, response.headers.get("X-A"), response.headers.get("X-B"),
            b"custom403" in response.body)


Pairs = Callable[[Path], AbstractContextManager]


@pytest.mark.nginx
@pytest.mark.parametrize("pair", [nginx_pair, flask_pair], ids=["nginx", "flask"])
def test_targets_answer_as_apache(site: Path, apache_binary: object, nginx_binary: object,
                                  pair: Pairs) -> None:
    with pair(site) as servers:
        for path, status in CASES:
            apache, converted = servers.ask(path)
            assert apache.status == status, (path[:20], len(path), apache.status)
            if status == 403:  # the server's defaults: no access file's header or page
                assert _seen(apache) == (403, None, None, False), path[:20]
            assert _seen(converted) == _seen(apache), (path[:20], len(path))


def test_the_model_answers_as_apache(site: Path) -> None:
    for path, status in CASES:
        result = CliRunner().invoke(app, ["explain", "--no-config", "--root", str(site),
                                          "--format", "json", path])
        answer = json.loads(result.stdout)
        assert answer["status"] == status, (path[:20], answer["status"])
        if status == 403:
            assert answer["headers"] == {} and answer["body"] is None, path[:20]
