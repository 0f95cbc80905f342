"""The traps of ../shared/docs/traps.md that apply to converting for nginx, each asked of real
Apache (the .htaccess tree) and real nginx (confmig's output) with the same requests.

One site holds a directory per trap; both servers are started once for the module.  Each
test compares what the two servers answer (status, body, the headers that matter) and checks
the answer that makes the trap visible, so that a converter falling into it fails.  Traps
checked elsewhere on real servers are named where they are (test_verify_nginx.py)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

import pytest

from confmig.servers import Response, make_docroot
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

SITE = {
    # Per-directory prefix: the pattern never sees "/prefix/" (nor a leading slash)
    "prefix/.htaccess": "RewriteEngine On\nRewriteRule ^x$ t.html [L]\n"
                        "RewriteRule ^/prefix/y$ t.html [L]\nRewriteRule ^prefix/z$ t.html [L]\n",
    "prefix/t.html": "prefix t\n",
    # RewriteBase in a subdirectory: relative targets, internal and redirected
    "based/.htaccess": "RewriteEngine On\nRewriteBase /other/\n"
                       "RewriteRule ^r$ t.html [R=302,L]\nRewriteRule ^i$ t.html [L]\n",
    "other/t.html": "other t\n",
    "based/t.html": "based t\n",
    # Front controller: try_files, no 403 for a directory without an index
    "app/.htaccess": "Options -Indexes\nRewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                     "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule ^ index.html [L]\n",
    "app/index.html": "front\n", "app/noindex/f.txt": "f\n", "app/withindex/index.html": "i\n",
    # Query strings: kept, replaced, appended, dropped
    "qs/.htaccess": "RewriteEngine On\nRewriteRule ^keep$ /qs/t.html [R=302,L]\n"
                    "RewriteRule ^new$ /qs/t.html?a=1 [R=302,L]\n"
                    "RewriteRule ^qsa$ /qs/t.html?a=1 [QSA,R=302,L]\n"
                    "RewriteRule ^qsd$ /qs/t.html [QSD,R=302,L]\n"
                    "RewriteRule ^empty$ /qs/t.html? [R=302,L]\n",
    "qs/t.html": "qs\n",
    # [L] ends the pass only: Apache runs the rules again for the new URL
    "again/.htaccess": "RewriteEngine On\nRewriteRule ^a$ b [L]\nRewriteRule ^b$ c.html [L]\n",
    "again/c.html": "c\n",
    # %N from the last matched condition
    "condref/.htaccess": "RewriteEngine On\n"
                         "RewriteCond %{QUERY_STRING} (?:^|&)p=(\\w+)\n"
                         "RewriteCond %{HTTP_HOST} ^(\\w+)\n"
                         "RewriteRule ^go$ /condref/%1.html? [R=302,L]\n",
    # %{HTTPS}: Apache's on/off
    "https/.htaccess": "RewriteEngine On\nRewriteCond %{HTTPS} !=on\n"
                       "RewriteRule ^s$ https://%{HTTP_HOST}/https/s [R=301,L]\n",
    # [E=…] read by a later condition: no nginx form (announced, never looser)
    "env/.htaccess": "RewriteEngine On\nRewriteRule ^e$ - [E=SEEN:1]\n"
                     "RewriteCond %{ENV:SEEN} =1\nRewriteRule ^e$ t.html [L]\n",
    "env/t.html": "env\n",
    # lexical: a continued line, tabs
    "lex/.htaccess": "RewriteEngine On\nRewriteRule\t^l$ \\\n  t.html [L]\n",
    "lex/t.html": "lex\n",
    # a directive .htaccess may not hold: Apache answers 500 for the directory
    "bad/.htaccess": "Listen 8089\n", "bad/f.txt": "must not be served\n",
    # add_header: a level with its own drops the inherited ones; always or not
    "hdr/.htaccess": "Header set X-Outer outer\nHeader always set X-Always yes\n",
    "hdr/in/.htaccess": "Header set X-Inner inner\n",
    "hdr/in/f.txt": "f\n", "hdr/f.txt": "f\n",
    # headers keyed on the MIME type
    "mime/.htaccess": 'Header set X-Frame-Options DENY "expr=%{CONTENT_TYPE} =~ m#text/html#i"\n',
    "mime/p.html": "<p>\n", "mime/s.css": "p{}\n",
    # types {}: an added type must not lose the others
    "types/.htaccess": "AddType application/x-confmig .cfm\n",
    "types/a.cfm": "x\n", "types/s.css": "p{}\n", "types/p.html": "<p>\n",
    # regex locations: a denial first, the later section still reachable
    "order/.htaccess": '<FilesMatch "\\.txt$">\nHeader set X-Txt 1\n</FilesMatch>\n'
                       '<FilesMatch "^secret">\nRequire all denied\n</FilesMatch>\n',
    "order/a.txt": "a\n", "order/secret.txt": "s\n", "order/secret.css": "s\n",
    # encoded spellings of a denied path
    "priv/.htaccess": "Require all denied\n", "priv/f.txt": "secret\n", "x/y.txt": "y\n",
    # a rewrite into a denied directory
    "into/.htaccess": "RewriteEngine On\nRewriteRule ^f$ /priv/f.txt [L]\n",
    # the .well-known exception of a dot-file denial
    ".htaccess": "RewriteEngine On\nRewriteRule (^|/)\\.(?!well-known/) - [F]\n",
    ".well-known/acme-challenge/tok": "token\n", ".git/config": "[core]\n",
}


@pytest.fixture(scope="module")
def pair(apache_binary: object, nginx_binary: object) -> Iterator[Pair]:
    root = make_docroot(prefix="confmig-traps-", files=SITE)
    try:
        with both(root) as started:
            yield started
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _ask(pair: Pair, path: str, headers: dict[str, str] | None = None
         ) -> tuple[Response, Response]:
    """Both answers; the status and (for a 200) the body are the same."""
    a, b = pair.ask(path, headers)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status == 200:
        assert a.body == b.body, (path, a.body, b.body)
    return a, b


def _location(pair: Pair, response: Response, server: int) -> str:
    port = str((pair.setup.original, pair.setup.converted)[server].port)
    return (response.headers.get("Location") or "").replace(port, "PORT")


def test_per_directory_prefix_is_stripped(pair: Pair) -> None:
    assert _ask(pair, "/prefix/x")[0].status == 200
    assert _ask(pair, "/prefix/y")[0].status == 404  # ^/prefix/… never matches per-dir
    assert _ask(pair, "/prefix/z")[0].status == 404


def test_rewrite_base_in_a_subdirectory(pair: Pair) -> None:
    a, b = _ask(pair, "/based/r")
    assert a.status == 302 and _location(pair, a, 0) == _location(pair, b, 1)
    assert _location(pair, a, 0).endswith("/other/t.html")
    assert _ask(pair, "/based/i")[1].body == b"other t\n"


def test_front_controller_without_the_directory_403(pair: Pair) -> None:
    for path, status in [("/app/some/page", 200), ("/app/noindex/", 403),
                         ("/app/noindex", 301), ("/app/withindex/", 200), ("/app/", 200)]:
        assert _ask(pair, path)[0].status == status, path


@pytest.mark.parametrize(("path", "query"), [
    ("/qs/keep?x=1", "?x=1"), ("/qs/new?x=1", "?a=1"), ("/qs/qsa?x=1", "?a=1&x=1"),
    ("/qs/qsd?x=1", ""), ("/qs/empty?x=1", ""), ("/qs/keep", ""),
])
def test_query_strings_are_neither_lost_nor_doubled(pair: Pair, path: str, query: str) -> None:
    a, b = _ask(pair, path)
    assert a.status == 302
    assert _location(pair, a, 0) == _location(pair, b, 1)
    assert _location(pair, a, 0).endswith("/qs/t.html" + query)


def test_last_ends_the_pass_and_the_rules_run_again(pair: Pair) -> None:
    assert _ask(pair, "/again/a")[1].body == b"c\n"


def test_percent_n_comes_from_the_last_matched_condition(pair: Pair) -> None:
    a, b = _ask(pair, "/condref/go?p=first", {"Host": "hostpart"})
    assert _location(pair, a, 0) == _location(pair, b, 1)
    assert _location(pair, a, 0).endswith("/condref/hostpart.html")


def test_https_is_apaches_on_or_off(pair: Pair) -> None:
    a, b = _ask(pair, "/https/s", {"Host": "example.com"})
    assert a.status == 301 and a.headers["Location"] == b.headers["Location"] == \
        "https://example.com/https/s"


def test_environment_variables_are_announced_and_never_looser(pair: Pair) -> None:
    a, b = pair.ask("/env/e")
    assert a.status == 200 and b.status == 403
    notes = pair.setup.conversion.untranslatable
    assert any(n.file.endswith("env/.htaccess") and "ENV" in n.reason for n in notes), notes


def test_lexical_continuation_and_tabs(pair: Pair) -> None:
    assert _ask(pair, "/lex/l")[1].body == b"lex\n"


def test_a_directive_apache_refuses_is_never_served(pair: Pair) -> None:
    assert _ask(pair, "/bad/f.txt")[0].status == 500


def test_inherited_headers_are_not_dropped(pair: Pair) -> None:
    for path in ("/hdr/in/f.txt", "/hdr/f.txt", "/hdr/in/missing"):
        a, b = _ask(pair, path)
        for name in ("X-Outer", "X-Inner", "X-Always"):
            assert a.headers.get(name) == b.headers.get(name), (path, name)
    a, _ = _ask(pair, "/hdr/in/f.txt")
    assert a.headers.get("X-Outer") == "outer" and a.headers.get("X-Inner") == "inner"
    a, _ = _ask(pair, "/hdr/in/missing")
    assert a.status == 404 and a.headers.get("X-Always") == "yes"


def test_headers_keyed_on_the_content_type(pair: Pair) -> None:
    for path, expected in [("/mime/p.html", "DENY"), ("/mime/s.css", None)]:
        a, b = _ask(pair, path)
        assert a.headers.get("X-Frame-Options") == b.headers.get("X-Frame-Options") == expected


def test_an_added_type_keeps_the_others(pair: Pair) -> None:
    for path in ("/types/a.cfm", "/types/s.css", "/types/p.html"):
        a, b = _ask(pair, path)
        assert a.headers.get("Content-Type") == b.headers.get("Content-Type"), path
    assert _ask(pair, "/types/a.cfm")[1].headers.get("Content-Type") == "application/x-confmig"


def test_regex_sections_in_order(pair: Pair) -> None:
    assert _ask(pair, "/order/a.txt")[1].headers.get("X-Txt") == "1"
    assert _ask(pair, "/order/secret.txt")[0].status == 403
    assert _ask(pair, "/order/secret.css")[0].status == 403


@pytest.mark.parametrize("path", ["/priv/f.txt", "/priv%2ff.txt", "/%70riv/f.txt",
                                  "/x/../priv/f.txt", "/x/..%2fpriv/f.txt",
                                  "/x/%2e%2e/priv/f.txt", "/priv//f.txt", "//priv/f.txt"])
def test_encoded_spellings_of_a_denied_path(pair: Pair, path: str) -> None:
    a, b = pair.ask(path)
    assert a.status != 200 and b.status != 200, (path, a.status, b.status)
    assert a.status == b.status, (path, a.status, b.status)


def test_a_rewrite_into_a_denied_directory(pair: Pair) -> None:
    assert _ask(pair, "/into/f")[0].status == 403


def test_if_blocks_hold_only_return_rewrite_set_break(pair: Pair) -> None:
    text = pair.setup.conversion.text
    bodies = re.findall(r"\bif \([^\n]*\) \{([^\n]*)\}", text)
    assert bodies
    for body in bodies:
        for statement in filter(None, (s.strip() for s in body.split(";"))):
            assert statement.split()[0] in ("set", "return", "rewrite", "break"), statement


def test_a_prefix_denial_keeps_the_well_known_exception(pair: Pair) -> None:
    assert _ask(pair, "/.well-known/acme-challenge/tok")[1].body == b"token\n"
    assert _ask(pair, "/.git/config")[0].status == 403
