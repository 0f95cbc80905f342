"""A '#' in the request line (issue 12: never 200 where Apache fails).  A client never sends
a fragment; Apache answers 400 for one before any configuration is read, while nginx cut the
URL at the '#' and answered for the rest (200 for ``/a#x``, a redirect for a rule's URL)."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from confmig.servers import make_docroot
from tests.nginx.servers import both

HTACCESS = """RewriteEngine On
RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]
RewriteRule ^ http://%1%{REQUEST_URI} [R=301,L]
RewriteRule ^old$ /a [R=302,L]
"""


@pytest.fixture
def site() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-frag-", files={"a": "A\n", ".htaccess": HTACCESS})
    yield root
    shutil.rmtree(root, ignore_errors=True)


def status_line(base_url: str, target: str, host: str) -> str:
    """The status line for a request line sent as it is (no client library drops the '#')."""
    address = urlsplit(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\n"
                     "Connection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n", 1)[0].decode("latin-1")


@pytest.mark.apache
@pytest.mark.nginx
def test_a_fragment_in_the_request_line_is_400_on_both(site: Path, apache_binary: object,
                                                        nginx_binary: object) -> None:
    with both(site) as pair:
        apache, nginx = pair.setup.original.base_url, pair.setup.converted.base_url
        for host in ("localhost", "www.example.com"):
            for target in ("/a#x", "/a?q=1#f", "/old#x", "/missing#x", "/#"):
                a, b = status_line(apache, target, host), status_line(nginx, target, host)
                assert a.split()[1] == "400", (host, target, a)
                assert b.split()[1] == a.split()[1], (host, target, a, b)
            # an encoded '#' is a character of the path, not a fragment
            a, b = status_line(apache, "/a%23x", "localhost"), status_line(nginx, "/a%23x",
                                                                             "localhost")
            assert a.split()[1] == b.split()[1] == "404", (a, b)
