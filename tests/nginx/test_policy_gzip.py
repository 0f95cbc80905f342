"""mod_deflate (``AddOutputFilterByType DEFLATE``) as nginx's gzip (issue 12).  Checked on
real Apache: a 200 of a listed type above 68 bytes is compressed for a client whose
Accept-Encoding names gzip (not x-gzip, not ``*``, not ``q=0``), HTTP/1.0 and HEAD too, with
``Vary: Accept-Encoding`` whether compressed or not; a smaller answer, another status or
another type is left alone; a subdirectory's list replaces its parent's.  verify sends
``Accept-Encoding: gzip`` where Apache compresses and compares the decompressed bodies."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.plan import plan_docroot
from confmig.servers import Response
from confmig.servers.net import ResponseHeaders
from confmig.verify import VerifyRequest, verify
from confmig.verify.compare import observe
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

TEXT = "confmig gzip probe line\n" * 20
FILES = {
    ".htaccess": "AddOutputFilterByType DEFLATE text/plain text/html text/css\n"
                 "AddCharset utf-8 .txt\nErrorDocument 410 /gone.html\n"
                 "Redirect gone /old\n",
    "a.txt": TEXT, "b.html": "<p>" + TEXT, "c.css": TEXT, "d.js": TEXT, "tiny.txt": "x" * 68,
    "edge.txt": "y" * 69, "empty.txt": "", "gone.html": "<p>gone</p>" + TEXT,
    "dir/index.html": "<p>" + TEXT,
    "sub/.htaccess": "AddOutputFilterByType DEFLATE text/javascript application/javascript\n",
    "sub/a.txt": TEXT, "sub/d.js": TEXT,
}
ENCODINGS = [None, "gzip", "GZIP", "br, gzip", "gzip;q=0", "x-gzip", "*", "identity",
             "deflate"]
COMPARED = ("Content-Encoding", "Vary", "Content-Type")


@pytest.fixture
def root() -> Iterator[Path]:
    from confmig.servers import make_docroot

    made = make_docroot(prefix="confmig-nggz-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def body(response: Response) -> bytes:
    if response.headers.get("Content-Encoding") == "gzip":
        return gzip.decompress(response.body)
    return response.body


def test_the_plan_carries_the_types(root: Path) -> None:
    plan = plan_docroot(root)
    types = {s.url: s.settings.deflate_types for s in plan.scopes}
    assert types["/"] == ("text/plain", "text/html", "text/css")
    assert types["/sub/"] == ("text/javascript", "application/javascript")  # replaces


def test_compressed_where_apache_compresses(root: Path, apache_binary: object,
                                           nginx_binary: object) -> None:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert "gzip on;" in result.stdout and "gzip off;" in result.stdout
    # what nginx does beyond Apache is announced (its 403/404 pages)
    assert "AddOutputFilterByType" in result.stderr
    with both(root) as pair:
        compressed = set()
        for path in ("/a.txt", "/b.html", "/c.css", "/d.js", "/tiny.txt", "/edge.txt",
                     "/empty.txt", "/dir/", "/sub/a.txt", "/sub/d.js"):
            for encoding in ENCODINGS:
                headers = {"Accept-Encoding": encoding} if encoding else {}
                for method in ("GET", "HEAD") if encoding == "gzip" else ("GET",):
                    a, b = pair.ask(path, headers, method)
                    assert a.status == b.status == 200, (path, encoding)
                    for name in COMPARED:
                        assert a.headers.get(name) == b.headers.get(name), \
                            (path, encoding, method, name)
                    if method == "GET":
                        assert body(a) == body(b), (path, encoding)
                    if a.headers.get("Content-Encoding") == "gzip":
                        compressed.add(path)
        assert compressed == {"/a.txt", "/b.html", "/c.css", "/edge.txt", "/dir/",
                              "/sub/d.js"}
        # an ErrorDocument's page is not compressed by Apache (status 410): nor here
        a, b = pair.ask("/old", {"Accept-Encoding": "gzip"})
        assert a.status == b.status == 410
        assert a.headers.get("Content-Encoding") is None
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()
    compressed_probes = [r for r in report.differing
                         if ("Accept-Encoding", "gzip") in r.probe.headers]
    # the only differences, announced: nginx's own 403 and 404 pages (compressed, Vary), and
    # sub/'s listing (text/html, which nginx always compresses and sub/ does not list)
    assert compressed_probes and all(r.announced for r in compressed_probes)
    assert {(r.original.status, r.probe.path) for r in compressed_probes
            if r.original.status not in (403, 404)} <= {(200, "/sub/")}, report.summary()


def test_verify_compares_what_was_compressed_not_how() -> None:
    def response(headers: dict[str, str], data: bytes) -> Response:
        return Response(200, "OK", ResponseHeaders(headers.items()), data)

    plain = response({"Content-Type": "text/plain"}, TEXT.encode())
    packed = response({"Content-Type": "text/plain", "Content-Encoding": "gzip"},
                      gzip.compress(TEXT.encode(), 9, mtime=1))
    other = response({"Content-Type": "text/plain", "Content-Encoding": "gzip"},
                     gzip.compress(TEXT.encode(), 1, mtime=2))
    assert observe(packed, 1).body_sha256 == observe(other, 1).body_sha256 \
        == observe(plain, 1).body_sha256
    assert observe(packed, 1).headers["content-encoding"] == "gzip"
    broken = response({"Content-Encoding": "gzip"}, b"not gzip")
    assert observe(broken, 1).body_preview == "not gzip"
