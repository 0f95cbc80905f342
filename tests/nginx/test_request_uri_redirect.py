"""``%{REQUEST_URI}`` at the start of an ``[R]`` target's path: h5bp's and every www/https
redirect, ``RewriteRule ^ %{ENV:PROTO}://%1%{REQUEST_URI} [R=301,L]``.

Apache's REQUEST_URI is the request's path decoded and normalised (``..`` and ``//``
resolved), which the redirect %-escapes again (lower-case hex); nginx's ``$uri`` is decoded
too but ``rewrite … redirect`` would not escape it again, so a space or a '%' changed the
URL (denied: 403).  The path of ``$request_uri`` is the client's own escaping of the same
bytes: nginx redirects to it on the request's first pass, where ``$uri`` is its decoding, and
to ``$uri`` (denied where it holds a byte Apache escapes) otherwise.  Real Apache and nginx,
request by request: the same status, and the same Location once %-decoded."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.rewrite import REQPATH_NOTE
from confmig.servers import Response, make_docroot
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

WWW = ("RewriteEngine On\n"
       "RewriteCond %{HTTPS} !=on\n"
       "RewriteRule ^ - [E=PROTO:http]\n"
       "RewriteCond %{HTTPS} =on\n"
       "RewriteRule ^ - [E=PROTO:https]\n"
       "RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
       "RewriteRule ^ %{ENV:PROTO}://%1%{REQUEST_URI} [R=301,L]\n")
#: An internal rewrite's second round: Apache's REQUEST_URI is then the new path.
ROUNDS = ("RewriteEngine On\n"
          "RewriteRule ^old$ new [L]\n"
          "RewriteRule ^a\\ b$ a_b [L]\n"
          "RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
          "RewriteRule ^(new|a_b)$ http://%1%{REQUEST_URI} [R=301,L]\n")
FILES = {"x.txt": "x\n", "y/z.txt": "z\n", "new": "n\n", "a_b": "ab\n"}
#: Paths a browser sends (and a few it does not), each with and without a query string.
PATHS = ["/", "/x.txt", "/a%20b", "/a%25b", "/%C3%A9", "/%c3%a9", "/a+b", "/a%2Fb",
         "/x/../y", "/x/%2e%2e/y", "//x", "/a%7Bb", "/a%3Fb", "/a%23b", "/a%5Cb", "/a%26b",
         "/%41", "/a%zzb", "/y/./z.txt", "/a;b=c", "/~u/", "/a%0Ab", "/a\\b", "/%7e%75/"]
QUERIES = ["", "?q=1", "?a%20b=c%25d", "?x"]


def _location(pair: Pair, response: Response, server: int) -> str:
    port = str((pair.setup.original, pair.setup.converted)[server].port)
    return (response.headers.get("Location") or "").replace(port, "PORT")


#: Bytes whose %-escape means something else than the byte (a URL's structure).
STRUCTURAL = b"%?#/&+;=\\"


def _url(location: str) -> bytes:
    """*location* as a server reads it: %-decoded but for the escapes of structural bytes,
    spaces and control characters (their hex in upper case)."""
    def decode(m: re.Match[bytes]) -> bytes:
        byte = int(m[1], 16)
        return m[0].upper() if byte <= 0x20 or byte == 0x7F or byte in STRUCTURAL \
            else bytes([byte])
    return re.sub(rb"%([0-9A-Fa-f]{2})", decode, location.encode("latin-1"))


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngreqi-", files={".htaccess": WWW, **FILES})
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _compare(pair: Pair, paths: list[str], denied: set[str]) -> list[tuple]:
    """Ask both servers for each path as www.example.test; a difference (a 403 of nginx's
    where the path is in *denied* excepted) is returned."""
    out = []
    for path in paths:
        a, b = pair.ask(path, {"Host": "www.example.test"})
        if b.status == 403 and a.status != 403 and path in denied:
            continue
        if a.status != b.status or _url(_location(pair, a, 0)) != _url(_location(pair, b, 1)):
            out.append((path, a.status, _location(pair, a, 0), b.status, _location(pair, b, 1)))
    return out


def test_the_www_redirect_is_apaches_for_what_browsers_send(
        root: Path, apache_binary: object, nginx_binary: object) -> None:
    """Every path: the same status and Location (decoded) on both, nginx's announced 403
    only for a backslash (raw, or %5C: nginx's redirect would decode it; a browser reads a
    raw one as '/').  %3F is Apache's own 403 (a decoded '?')."""
    paths = [p + q for p in PATHS for q in QUERIES]
    denied = {p + q for p in ("/a%5Cb", "/a\\b") for q in QUERIES}
    with both(root) as pair:
        assert _compare(pair, paths, denied) == []
        # what browsers send is never denied
        for path in ("/a%20b", "/a%25b", "/%C3%A9", "/a+b", "/a%20b?q=a%20b", "//x", "/x/../y"):
            a, b = pair.ask(path, {"Host": "www.example.test"})
            assert (a.status, b.status) == (301, 301), (path, a.status, b.status)


def test_the_www_redirects_note_names_only_what_it_denies(root: Path) -> None:
    """The note says what is denied: a backslash, or a path other than the request's own
    holding what Apache escapes — not every path with a '%'."""
    notes = [n for n in convert_docroot(root).result.untranslatable
             if n.directive == "RewriteRule"]
    assert [(n.line, n.reason, n.answer) for n in notes] == [(7, REQPATH_NOTE, 403)]


def test_a_second_round_redirects_to_the_rewritten_path(
        apache_binary: object, nginx_binary: object) -> None:
    """After an internal rewrite Apache's REQUEST_URI is the new path, not the request's."""
    root = make_docroot(prefix="confmig-ngreqi-", files={".htaccess": ROUNDS, **FILES})
    try:
        with both(root) as pair:
            paths = ["/old", "/old?q=1", "/new", "/a%20b", "/a%20b?q", "/a_b", "/ol%64"]
            assert _compare(pair, paths, set()) == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
