"""mod_expires' map on ``$status:$sent_http_content_type`` gets exact rows for the types the
site's files are sent with (issue 12: h5bp's 19 caseless regex rows cost nginx more than a
microsecond per answer without PCRE JIT; nginx looks exact keys up in a hash, without regard
to case, before it tries a regex).  The regex rows still decide: every exact row carries what
they give its key, and real nginx answers the site's files with the expiry real Apache sends.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

import pcre2
import pytest

from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.headers import exact_rows
from confmig.servers import make_docroot
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

HTACCESS = """ExpiresActive On
ExpiresDefault "access plus 1 month"
ExpiresByType text/html "access plus 0 seconds"
ExpiresByType text/css "access plus 1 year"
ExpiresByType application/json "access plus 1 hour"
ExpiresByType image/* "access plus 1 week"
ExpiresByType Application/X-Confmig "access plus 2 days"
AddType Application/X-Confmig .cfm
AddCharset utf-8 .css .json
AddDefaultCharset utf-8
"""
FILES = {".htaccess": HTACCESS, "index.html": "<p>\n", "s.css": "p{}\n", "d.json": "{}\n",
         "i.png": "PNG", "i.svg": "<svg/>\n", "t.txt": "t\n", "x.cfm": "x\n", "f.pdf": "%PDF\n",
         "noext": "n\n"}


@pytest.fixture(scope="module")
def pair(apache_binary: object, nginx_binary: object) -> Iterator[Pair]:
    root = make_docroot(prefix="confmig-expires-", files=FILES)
    try:
        with both(root) as started:
            yield started
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _max_age(value: str | None) -> str | None:
    match = re.search(r"max-age=(\d+)", value or "")
    return match.group(1) if match else None


@pytest.mark.parametrize("path", ["/", *(f"/{name}" for name in FILES if name != ".htaccess"),
                                  "/missing.css"])
def test_the_expiry_is_apaches(pair: Pair, path: str) -> None:
    a, b = pair.ask(path)
    assert a.status == b.status, path
    assert _max_age(a.headers.get("Cache-Control")) == _max_age(b.headers.get("Cache-Control")), \
        (path, a.headers.get("Cache-Control"), b.headers.get("Cache-Control"))
    assert ("Expires" in a.headers) == ("Expires" in b.headers), path


def test_exact_rows_carry_what_the_regex_rows_give() -> None:
    root = make_docroot(prefix="confmig-expires-", files=FILES)
    try:
        text = convert_docroot(root).result.text
    finally:
        shutil.rmtree(root, ignore_errors=True)
    block = text.split('map "$status:$sent_http_content_type" ')[1].split("\n}")[0]
    exact = re.findall(r'^    "(\d{3}:[^"~]*)" (\S+);$', block, re.M)
    regex = [(k, v) for k, v in re.findall(r'^    "(~[^"]*)" (\S+);$', block, re.M)]
    assert {"200:text/css; charset=utf-8", "200:application/x-confmig", "200:image/png",
            "200:text/html; charset=utf-8", "200:"} <= {k.lower() for k, _ in exact}
    for key, value in exact:
        for spelled in (key, key.upper()):  # nginx compares exact keys without case
            first = next((v for k, v in regex
                          if pcre2.compile(k.lstrip("~*"), pcre2.IGNORECASE
                                           if k.startswith("~*") else 0).search(spelled)),
                         "off")
            assert first == value, (spelled, first, value)


def test_no_exact_rows_when_a_row_depends_on_case() -> None:
    rows = [("~^200:Text/CSS", "1"), ("~*^[1-3]\\d\\d:", "2")]
    assert exact_rows(rows, ["text/css"], "off") == []
    assert exact_rows(rows[1:], ["text/css"], "off") == [("200:text/css", "2"),
                                                         ("304:text/css", "2")]
