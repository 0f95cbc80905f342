"""An ``[R]`` target's expansions as Apache writes them in its Location, and nginx's.

Apache (``escape_absolute_uri``, ``ap_escape_uri``) %-escapes, in lower-case hex, every
byte of a redirect's path outside ``A-Za-z0-9$-_.+!*'(),:;@&=/~`` — a '%' a condition's
``%N`` or ``%{QUERY_STRING}`` brings too (``a%3Fb`` → ``a%253Fb``) — and its query the same
way unless it is the request's own; with ``[NE]`` it copies both as they are.  nginx copies
a variable as it is, a capture %-escaped when the request's path had a %-escape or a '+', and
``rewrite … redirect`` decodes the target's %-escapes of 0x26-0x7e before its '?'.  So
nginx must either send Apache's Location byte for byte or deny (403, announced): it may
never redirect elsewhere.  Real Apache 2.4.71 and real nginx, request by request."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.servers import Response, make_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

RULES = ("RewriteEngine On\n"
         "RewriteCond %{QUERY_STRING} ^u=(.*)$\n"
         "RewriteRule ^cond$ /archive/%1 [R=302,L]\n"
         "RewriteCond %{QUERY_STRING} ^u=(.*)$\n"
         "RewriteRule ^condne$ /archive/%1 [R=302,NE,L]\n"
         "RewriteRule ^qs$ /archive/%{QUERY_STRING} [R=302,L]\n"
         "RewriteRule ^q303$ /archive/%{QUERY_STRING} [R=303,L]\n"
         "RewriteRule ^q303ne$ /archive/%{QUERY_STRING} [R=303,NE,L]\n"
         "RewriteRule ^hdr$ /archive/%{HTTP:X-Q} [R=302,L]\n"
         "RewriteRule ^hdrne$ /archive/%{HTTP:X-Q} [R=302,NE,L]\n"
         "RewriteRule ^ref$ /archive/x.txt?r=%{HTTP_REFERER} [R=302,L]\n"
         "RewriteRule ^refne$ /archive/x.txt?r=%{HTTP_REFERER} [R=302,NE,L]\n"
         "RewriteCond %{QUERY_STRING} ^u=(.*)$\n"
         "RewriteRule ^late$ /archive/x.txt?u=%1 [R=302,L]\n"
         "RewriteCond %{QUERY_STRING} ^u=(.*)$\n"
         "RewriteRule ^later$ /archive/x.txt?v=%1 [R=302,L]\n"
         "RewriteRule ^qsa$ /archive/x.txt?a=1 [R=302,QSA,L]\n"
         "RewriteRule ^old/(.*)$ /archive/$1 [R=302,L]\n"
         "RewriteRule ^oldne/(.*)$ /archive/$1 [R=302,NE,L]\n"
         "RewriteRule ^n303/(.*)$ /archive/$1 [R=303,L]\n"
         "RewriteRule ^inq/(.*)$ /archive/x.txt?p=$1 [R=302,L]\n")
FILES = {".htaccess": RULES, "archive/x.txt": "x\n"}
SAME, EQUIVALENT, DENIED = "same", "equivalent", 403
#: (path, headers) → SAME (nginx redirects to Apache's Location, byte for byte), EQUIVALENT
#: (to Apache's URL written otherwise: a %-escape's hex in upper case, '{' or '[' left as
#: it is — the same path once decoded) or DENIED (Apache redirects, nginx answers the
#: announced 403): as seen on Apache 2.4.71 and nginx 1.22.1.
CASES: dict[tuple[str, tuple[tuple[str, str], ...]], str | int] = {
    # a condition's %N from the query, still %-escaped: Apache escapes its '%' again
    ("/cond?u=a%3Fb", ()): DENIED, ("/cond?u=a%20b", ()): DENIED,
    ("/cond?u=a{b", ()): EQUIVALENT, ("/cond?u=abc", ()): SAME, ("/cond?u=a+b", ()): SAME,
    # ... nginx escapes it too once the request's path holds a %-escape
    ("/con%64?u=a%20b", ()): SAME, ("/con%64?u=a%7Bb", ()): SAME,
    ("/con%64?u=a{b", ()): EQUIVALENT, ("/con%64?u=a[b", ()): EQUIVALENT,
    ("/condne?u=a%3Fb", ()): DENIED, ("/condne?u=a%zz", ()): DENIED,
    ("/condne?u=a%20b", ()): SAME, ("/condne?u=a{b", ()): SAME,
    ("/qs?a%3Fb", ()): DENIED, ("/q%73?a%20b", ()): DENIED, ("/qs?ab", ()): SAME,
    ("/q303?a%3Fb", ()): DENIED, ("/q303?a{b", ()): EQUIVALENT, ("/q303?ab", ()): SAME,
    ("/q303ne?a%3Fb", ()): SAME, ("/q303ne?a{b", ()): SAME,
    ("/hdr", (("X-Q", "a b"),)): DENIED, ("/hdr", (("X-Q", "a#b"),)): DENIED,
    ("/hdr", (("X-Q", "a%3Fb"),)): DENIED, ("/hdr", (("X-Q", "ok"),)): SAME,
    ("/hdrne", (("X-Q", "a%3Fb"),)): DENIED, ("/hdrne", (("X-Q", "a%zz"),)): DENIED,
    ("/hdrne", (("X-Q", "a b"),)): SAME, ("/hdrne", (("X-Q", "a%20b"),)): SAME,
    # the target's own query: escaped unless it is the request's
    ("/ref", (("Referer", "http://h/?a"),)): DENIED,
    ("/ref", (("Referer", "http://h/a%20b"),)): DENIED,
    ("/ref", (("Referer", "http://h/a"),)): SAME,
    ("/refne", (("Referer", "http://h/?a"),)): SAME,
    ("/late?u=a?b", ()): SAME, ("/late?u=a%3Fb", ()): SAME,
    ("/later?u=a%3Fb", ()): DENIED, ("/later?u=a?b", ()): DENIED, ("/later?u=ab", ()): SAME,
    ("/qsa?b=%20", ()): DENIED, ("/qsa?b=c", ()): SAME, ("/qsa", ()): SAME,
    # $N: nginx's escaped capture is Apache's for digit-only escapes it does not decode
    ("/old/a%20b", ()): SAME, ("/old/a%25b", ()): SAME, ("/old/a%22b", ()): SAME,
    ("/old/a%80b", ()): SAME, ("/old/a+b", ()): SAME, ("/old/a%26b", ()): SAME,
    ("/old/a%7Bb", ()): EQUIVALENT, ("/old/%C3%A9", ()): EQUIVALENT,
    ("/old/a%0Ab", ()): EQUIVALENT, ("/old/a[b", ()): EQUIVALENT,
    ("/oldne/a%20b", ()): DENIED, ("/oldne/a%25b", ()): DENIED, ("/oldne/a+b", ()): SAME,
    ("/oldne/a%7Bb", ()): SAME,
    ("/n303/ab", ()): SAME, ("/n303/a%7Bb", ()): DENIED, ("/n303/a+b", ()): DENIED,
    ("/inq/a%20b", ()): SAME, ("/inq/ab", ()): SAME, ("/inq/a{b", ()): EQUIVALENT,
    ("/inq/a+b", ()): DENIED,
}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngesc-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _location(pair: Pair, response: Response, server: int) -> str:
    port = str((pair.setup.original, pair.setup.converted)[server].port)
    return (response.headers.get("Location") or "").replace(port, "PORT")


def _url(location: str) -> str:
    """*location* as the server it names reads it: %-decoded, but for the escapes of bytes
    that change what a URL means (STRUCTURAL, a space, a control character)."""
    def decode(m: re.Match[bytes]) -> bytes:
        byte = int(m[1], 16)
        return m[0].upper() if byte <= 0x20 or byte == 0x7F or chr(byte) in STRUCTURAL \
            else bytes([byte])
    return re.sub(rb"%([0-9A-Fa-f]{2})", decode, location.encode("latin-1")).decode("latin-1")


STRUCTURAL = "%?#/&+;="


def test_nginx_redirects_to_apaches_location_or_denies(root: Path, apache_binary: object,
                                                        nginx_binary: object) -> None:
    with both(root) as pair:
        for (path, headers), expected in CASES.items():
            a, b = pair.ask(path, dict(headers))
            where = (path, headers, a.status, _location(pair, a, 0), b.status,
                     _location(pair, b, 1))
            assert 300 <= a.status < 400, where
            if b.status != 403:  # never a redirect elsewhere
                assert a.status == b.status, where
                assert _url(_location(pair, a, 0)) == _url(_location(pair, b, 1)), where
            found = b.status if b.status != a.status else \
                SAME if _location(pair, a, 0) == _location(pair, b, 1) else EQUIVALENT
            assert found == expected, where


def test_the_denials_are_announced(root: Path) -> None:
    """Each rule that may deny a redirect has a note saying nginx answers 403 instead."""
    notes = convert_docroot(root).result.untranslatable
    denying = {n.line for n in notes if n.answer == 403 and n.directive == "RewriteRule"}
    # all but ^refne$ ([NE] leaves its query alone, it has no expansion before it) and
    # ^old/ ($1 only: nginx escapes it as Apache does, or it holds none of those bytes)
    lines = [n for n, line in enumerate(RULES.splitlines(), 1)
             if line.startswith("RewriteRule") and "^refne$" not in line
             and "^old/" not in line]
    assert denying == set(lines), sorted(notes, key=lambda n: n.line)


def test_verify_probes_such_requests(root: Path, apache_binary: object,
                                     nginx_binary: object) -> None:
    """verify --to nginx sends requests with bytes Apache escapes to each such rule: the
    denials show up as announced differences, never as unannounced ones."""
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600))
    assert not report.unannounced, report.summary()
    announced = {r.probe.path.split("?")[0] for r in report.announced
                 if r.converted.status == 403 and 300 <= r.original.status < 400}
    assert {"/cond", "/condne", "/qs", "/q303", "/hdr", "/hdrne", "/ref", "/later",
            "/n303/%25"} <= announced, report.summary()


CTL_RULES = ("RewriteEngine On\n"
             "RewriteRule ^inner$ archive/x.txt?r=%{HTTP:X-Q} [L]\n"
             "RewriteRule ^innerc/(.*)$ archive/x.txt?p=$1 [L]\n"
             "RewriteRule ^refne$ /archive/x.txt?r=%{HTTP_REFERER} [R=302,NE,L]\n"
             "RewriteRule ^ref$ /archive/x.txt?r=%{HTTP_REFERER} [R=302,L]\n")


def test_a_space_in_a_query_apache_does_not_escape_is_403_on_both(
        apache_binary: object, nginx_binary: object) -> None:
    """An internal rewrite's or an [R,NE] target's query with a space or a control character
    is Apache's 403 (``Rewritten query string contains control characters or spaces``);
    an escaped redirect's is not (it becomes %20)."""
    root = make_docroot(prefix="confmig-ngesc-", files={".htaccess": CTL_RULES,
                                                        "archive/x.txt": "x\n"})
    try:
        with both(root) as pair:
            for (path, headers), status in {
                    ("/inner", (("X-Q", "a b"),)): 403, ("/inner", (("X-Q", "a\tb"),)): 403,
                    ("/inner", (("X-Q", "a%20b"),)): 200, ("/inner", (("X-Q", "ab"),)): 200,
                    ("/innerc/a%20b", ()): 403, ("/innerc/a%09b", ()): 403,
                    ("/innerc/a+b", ()): 200, ("/innerc/ab", ()): 200,
                    ("/refne", (("Referer", "a b"),)): 403,
                    ("/refne", (("Referer", "ab"),)): 302}.items():
                a, b = pair.ask(path, dict(headers))
                assert (a.status, b.status) == (status, status), (path, headers)
            a, b = pair.ask("/ref", {"Referer": "a b"})
            assert (a.status, b.status) == (302, 403), "an escaped query: announced 403"
    finally:
        shutil.rmtree(root, ignore_errors=True)
