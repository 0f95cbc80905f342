"""Hostile requests sent to real Apache as raw bytes, and the model's answer to the same
request: request-line and header limits, control characters, Host values, the path length.

``http.client`` refuses to send most of these, so each request is written to a socket as
is; the model gets the same method, target and header lines (one header line per field, as
``explain -H`` gives them).
"""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.load import load_path
from confmig.model.evaluate import evaluate
from confmig.model.request import Request, RequestHeaders
from confmig.servers import ApacheBinary, ApacheServer, make_docroot

pytestmark = pytest.mark.apache


def raw_status(port: int, data: bytes) -> int:
    """Send *data* on a fresh connection; the status code of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        buf = b""
        while b"\r\n" not in buf:
            chunk = sock.recv(4096)
            if not chunk:
                break
            buf += chunk
    line = buf.split(b"\r\n", 1)[0]
    assert line.startswith(b"HTTP/"), buf[:200]
    return int(line.split()[1])


def wire(method: str, target: str, headers: list[tuple[str, str]]) -> bytes:
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{n}: {v}\r\n" for n, v in headers)
    return (head + "\r\n").encode("utf-8", "surrogateescape")


def _line(total: int) -> str:
    """A target whose request line ``GET <target> HTTP/1.1`` is *total* bytes (the length
    in the query string: a long path would meet NAME_MAX/PATH_MAX first)."""
    return "/?" + "q" * (total - len("GET /? HTTP/1.1"))


HOSTS = ["a\rb", "a\x01b", "a b", 'a"b', "123", "1.2.3", "01.2.3.4", "1.2.3.4", "EXAMPLE.com.",
         "ex_ample.com", "[::1]", "[zz]", "[::1", "host:99999", "host:65535", "host:0",
         "host:abc", "host:", "a..b", "a/b", "ex.1com", "\xe9.com", "a,b", "x:80:80",
         "[::1]:8080", "a.b-c.d", "-a.com", "a\tb", "localhost", "[fe80::1%eth0]", "a\\b",
         "a.", ".", ""]

CASES: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("GET", _line(8190), [("Host", "x")]),
    ("GET", _line(8191), [("Host", "x")]),
    ("GET", _line(8192), [("Host", "x")]),
    ("GET", "/a\x01b", [("Host", "x")]),
    ("GET", "/a\x7fb", [("Host", "x")]),
    ("GET", "/a\udcffb", [("Host", "x")]),  # the byte 0xff: obs-text, allowed
    ("G(T", "/", [("Host", "x")]),
    *[("GET", "/", [("Host", h)]) for h in HOSTS],
    ("GET", "/", [("Host", "x"), ("X-A", "a\x01b")]),
    ("GET", "/", [("Host", "x"), ("X-A", "a\rb")]),
    ("GET", "/", [("Host", "x"), ("X-A", "a\nb")]),
    ("GET", "/", [("Host", "x"), ("X-A", "a\udcffb")]),
    ("GET", "/", [("Host", "x"), ("X(A", "a")]),
    ("GET", "/", [("Host", "x"), ("X-A", "a\tb")]),
    *[("GET", "/", [("Host", "x"), ("X-A", "v" * (n - 5))]) for n in (8191, 8192)],
    *[("GET", "/", [("Host", "x"), *[(f"X-{i}", "v") for i in range(n - 1)]])
      for n in (100, 101)],
]


@pytest.fixture(scope="module")
def server(apache_binary: ApacheBinary) -> Iterator[tuple[ApacheServer, Path]]:
    root = make_docroot()
    (root / "index.html").write_text("x")
    with ApacheServer(root, binary=apache_binary) as srv:
        yield srv, root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(("method", "target", "headers"), CASES,
                         ids=[repr((m, t[:20], h[-1][0], h[-1][1][:20], len(h)))
                              for m, t, h in CASES])
def test_read_time_refusals_match_apache(server: tuple[ApacheServer, Path], method: str,
                                         target: str, headers: list[tuple[str, str]]) -> None:
    srv, root = server
    apache = raw_status(srv.port, wire(method, target, headers))
    request = Request(target, method, RequestHeaders(headers), srv.port)
    model = evaluate(load_path(root, None, set()), request)
    assert model.status == apache, (apache, model.status, [s.message for s in model.steps])


def test_the_cases_discriminate(tmp_path: Path) -> None:
    """The list holds answers of each kind (so agreement is not agreement on one status)."""
    site = load_path(tmp_path, None, set())
    statuses = {evaluate(site, Request(t, m, RequestHeaders(h))).status for m, t, h in CASES}
    assert {400, 414} <= statuses and statuses & {200, 404}


def test_path_max_boundary_matches_apache(server: tuple[ApacheServer, Path]) -> None:
    """``apr_filepath_merge`` refuses DocumentRoot + path when ``strlen(root) +
    strlen(path) + 4 > 4096``: Apache answers 403 from one byte over, 404 below."""
    srv, root = server
    site = load_path(root, None, set())
    for total, expected in ((4092, 404), (4093, 403)):
        size = total - len(str(root))
        path = ("/".join(["e" * 200] * 30))[:size]
        path = path[:-1] + "e" if path.endswith("/") else path
        url = "/" + path
        request = Request(url, headers=RequestHeaders({"Host": "x"}), port=srv.port)
        apache = raw_status(srv.port, wire("GET", url, [("Host", "x")]))
        model = evaluate(site, request)
        assert (apache, model.status) == (expected, expected)
