"""Generated URLs (encoded slashes, ``..`` in every spelling, ``%00``, bad escapes, unicode,
long segments, symlinks out of the tree) against real Apache as the oracle and the generated
app through Flask's test client (fast: no server): the app never serves (200) a file that
Apache does not serve with the same body, and never a file outside the document root."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.test import EnvironBuilder, run_wsgi_app

from confmig.convert.flask import convert_docroot
from confmig.model.target import DEBIAN_INDEX
from confmig.servers import ApacheServer, http_get, make_docroot
from tests.flask.generated import load

pytestmark = [pytest.mark.apache]

FILES = {
    ".htaccess": "RewriteEngine On\nRewriteRule ^old/(.*)$ new/$1 [R=301,L]\n"
                 "RewriteRule ^go$ private/data.txt [L]\n"
                 '<FilesMatch "\\.(sql|bak)$">\n  Require all denied\n</FilesMatch>\n',
    "index.html": "home\n", "page.html": "page\n", "db.sql": "dump\n", "é.txt": "accent\n",
    "private/.htaccess": "Require all denied\n", "private/data.txt": "secret\n",
    "app/.htaccess": "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\n"
                     "RewriteRule . index.php [L]\n",
    "app/index.php": "front\n", "app/x.bak": "old\n", "new/a.html": "new a\n",
    "nolinks/.htaccess": "Options -FollowSymLinks\n", "nolinks/ok.txt": "ok\n",
    "addr/.htaccess": "Require ip 127.0.0.1\n", "addr/f.txt": "local\n", "addr/x.bak": "b\n",
    "star/.htaccess": "<Files *>\n  Header set X-Star 1\n</Files>\n", "star/f.txt": "star\n",
}
SEGMENTS = ["page.html", "index.html", "db.sql", "db%2esql", "private", "data.txt", "app",
            "index.php", "x.bak", "new", "old", "a.html", "nolinks", "out", "ok.txt", "go",
            ".htaccess", "%2ehtaccess", "..", ".", "%2e%2e", "%2E%2e", ".%2e", "%2e",
            "%2f", "%2F", "..%2f", "%00", "a%00b", "%", "%zz", "%C3%A9.txt", "%c3%a9.txt",
            "%E2%80%AE", "%F0%9F%98%80", "x" * 300, "%41pp", "PRIVATE", "", "~", "%7e",
            "addr", "star", "f.txt"]


@dataclass
class Got:
    status_code: int
    body: bytes

    def get_data(self) -> bytes:
        return self.body


def get(module: ModuleType, root: Path, url: str) -> Got:
    """GET *url* from the app through werkzeug's WSGI test runner, the request-target
    exactly as given (as a server puts it in RAW_URI; the test client would read "//x" as
    a host)."""
    environ = EnvironBuilder(path="/").get_environ()
    environ["RAW_URI"] = environ["REQUEST_URI"] = url
    environ["QUERY_STRING"] = url.partition("?")[2]
    environ["REMOTE_ADDR"] = "127.0.0.1"  # as the requests to Apache come
    body, status, _headers = run_wsgi_app(module.create_app(str(root)), environ,
                                          buffered=True)
    return Got(int(status.split()[0]), b"".join(body))


@pytest.fixture(scope="module")
def world(apache_binary: object) -> Iterator[tuple[Path, str, ModuleType]]:
    outside = Path(tempfile.mkdtemp(prefix="confmig-outside-"))
    outside.chmod(0o755)
    (outside / "secret.txt").write_text("outside\n")
    (outside / "secret.txt").chmod(0o644)
    root = make_docroot(prefix="confmig-hyp-", files=FILES)
    os.symlink(outside, root / "nolinks" / "out")
    module_dir = Path(tempfile.mkdtemp(prefix="confmig-hyp-mod-"))
    try:
        module = load(convert_docroot(root).result.text, module_dir)
        with ApacheServer(docroot=root, allow_override="All", binary=apache_binary,
                          extra_config=f"DirectoryIndex {DEBIAN_INDEX}\n") as apache:
            yield root, apache.base_url, module
    finally:
        for path in (root, outside, module_dir):
            shutil.rmtree(path, ignore_errors=True)


urls = st.builds(
    lambda segs, slash, query: "/" + "/".join(segs) + ("/" if slash else "") + query,
    st.lists(st.sampled_from(SEGMENTS), min_size=0, max_size=6),
    st.booleans(),
    st.sampled_from(["", "?", "?a=1", "?x=%2e%2e/%00"]),
)


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=urls)
def test_never_serves_what_apache_refuses_nor_outside_the_root(
        world: tuple[Path, str, ModuleType], url: str) -> None:
    root, apache_url, module = world
    site = module.Site(str(root))
    answer = site.answer("GET", url, {"host": "localhost", ":remote": "127.0.0.1"}, 80)
    if answer.file is not None:
        served = os.path.realpath(answer.file)
        assert served.startswith(os.path.realpath(root) + os.sep), (url, served)
    response = get(module, root, url)
    if response.status_code == 200:
        apache = http_get(apache_url, url)
        assert apache.status == 200, (url, apache.status)
        if answer.file is not None:  # a file (a listing's HTML is each server's own)
            assert apache.body == response.get_data(), url


def test_the_traps_answer_as_apache_does(world: tuple[Path, str, ModuleType]) -> None:
    """A fixed set where the status must be Apache's exactly."""
    root, apache_url, module = world
    for url in ["/private/data.txt", "/private%2fdata.txt", "/%70rivate/data.txt",
                "/x/../private/data.txt", "/x/%2e%2e/private/data.txt", "/../page.html",
                "/%2e%2e/page.html", "/page.html%00", "/db.sql", "/db%2esql", "/db.sql/x",
                "/app/x.bak", "/app/x.bak/y", "/app/anything", "/go", "/nolinks/out/secret.txt",
                "/nolinks/ok.txt", "/.htaccess", "/%2ehtaccess", "/%C3%A9.txt", "/%zz",
                "/" + "x" * 300, "/old/a.html?q=1", "/new", "/app/..", "/addr/f.txt",
                "/addr/.htaccess", "/addr/x.bak", "/star/.htaccess", "/star/f.txt"]:
        apache = http_get(apache_url, url)
        response = get(module, root, url)
        assert response.status_code == apache.status, url
        if apache.status == 200:
            assert response.get_data() == apache.body, url
