"""The shortcuts the request model takes for speed give what the general code gives.

(The differential suite also compares every case's ``trace=False`` answer with the explained
one; these tests pin the pieces.)
"""

from __future__ import annotations

import calendar
import time
from dataclasses import fields
from pathlib import Path

import pytest

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.mapping import StatCache
from confmig.model.request import Request, RequestHeaders
from confmig.model.response_headers import http_date
from confmig.model.rewrite import (
    Headers,
    RewriteConfig,
    RewriteOutcome,
    RewriteRequest,
    evaluate_directory,
)
from confmig.model.rewrite.apply import _apply_cond, _checker
from confmig.model.rewrite.engine import _outcome, directory_pass
from confmig.model.rewrite.state import EvalState
from confmig.model.rewrite.uri import escape_uri
from confmig.syntax import Directive, parse_text


def rewrite_config(text: str, directory: str = "/srv/www/") -> RewriteConfig:
    nodes = [n for n in parse_text(text, "t").nodes if isinstance(n, Directive)]
    return RewriteConfig.from_directives(nodes, "directory", directory)


def test_request_copy_has_every_field() -> None:
    request = RewriteRequest(uri="/a", query="q=1", headers={"Host": "h"}, port=8080,
                             document_root="/srv", server_aliases=("x",), path_info="/p")
    copy = request.copy()
    assert copy is not request
    for f in fields(RewriteRequest):
        assert getattr(copy, f.name) is getattr(request, f.name), f.name


def test_request_headers_are_the_engine_headers() -> None:
    headers = RequestHeaders([("X-A", "1"), ("x-a", "2")])
    assert isinstance(headers, Headers)
    request = RewriteRequest(headers=headers)
    assert request.headers is headers and request.headers.get("X-A") == "1, 2"


def test_outcome_sets_every_field() -> None:
    state = EvalState(RewriteRequest(), "/srv/", {}, "/srv/a", "")
    out = _outcome(state, "none")
    blank = RewriteOutcome()
    for f in fields(RewriteOutcome):
        assert getattr(out, f.name) == getattr(blank, f.name), f.name


@pytest.mark.parametrize("text", [
    "RewriteEngine On\nRewriteRule ^nothing$ x\n",
    "RewriteEngine On\nRewriteCond %{HTTPS} =on\nRewriteRule ^ - [E=A:1]\n",
    "RewriteEngine On\nRewriteRule ^a$ - [E=A:1]\n",
    "RewriteEngine On\nRewriteRule ^a$ b\n",
    "RewriteEngine On\nRewriteRule ^a$ - [T=text/x]\n",
    "RewriteEngine On\nRewriteRule ^a$ - [END]\n",
])
def test_directory_pass_none_means_the_plain_outcome(text: str) -> None:
    config = rewrite_config(text)
    request = RewriteRequest(uri="/a", query="q", headers={"Host": "h"}, fs=StatCache())
    full = evaluate_directory(config, request, "/srv/www/a", "/srv/www/", trace=False)
    fast = directory_pass(config, request, "/srv/www/a", "/srv/www/", "", {}, False)
    if fast is None:
        assert full.action == "none" and not full.env and not full.end
        assert (full.mime_type, full.handler, full.vary, full.unsupported) == (None, None, [], [])
    else:
        assert (fast.action, fast.uri, fast.env, fast.end, fast.mime_type) == (
            full.action, full.uri, full.env, full.end, full.mime_type)


CONDITIONS = [
    "%{HTTPS} =on", "%{HTTPS} !=on", "%{HTTP_HOST} ^www\\.(.+)$ [NC]",
    "%{HTTP_HOST} !^www\\.", "%{REQUEST_FILENAME} -f", "%{REQUEST_FILENAME} !-f",
    "%{REQUEST_FILENAME} -d", "%{REQUEST_FILENAME} !-d", "%{SCRIPT_FILENAME} -s",
    "%{QUERY_STRING} =", "%{QUERY_STRING} <m", "%{HTTP:X-N} -gt3", "%{HTTP:X-N} =5 [NC]",
    "%{DOCUMENT_ROOT}/x -f", "%{REQUEST_URI} ^/a", "%{HTTP:X-N} ^(5)$", "%{HTTP:Host} !^www",
]


@pytest.mark.parametrize("cond", CONDITIONS)
@pytest.mark.parametrize("filename", ["/srv/www/a.txt", "/srv/www", "/srv/www/none"])
def test_condition_checkers_agree_with_the_traced_code(tmp_path: Path, cond: str,
                                                       filename: str) -> None:
    (tmp_path / "a.txt").write_text("x")
    filename = filename.replace("/srv/www", str(tmp_path))
    config = rewrite_config(f"RewriteEngine On\nRewriteCond {cond}\nRewriteRule ^ -\n")
    (condition,) = config.rules[0].conditions
    for host in ("www.example.com", "example.com"):
        request = RewriteRequest(uri="/a", query="a", headers={"Host": host, "X-N": "5"},
                                 fs=StatCache(), document_root=str(tmp_path))
        fast = EvalState(request, str(tmp_path) + "/", {}, filename, "", trace=False)
        slow = EvalState(request, str(tmp_path) + "/", {}, filename, "", trace=False)
        assert _checker(condition)(condition, fast) == _apply_cond(condition, slow)
        assert (fast.br_cond is None) == (slow.br_cond is None)
        assert fast.vary_this == slow.vary_this


@pytest.mark.parametrize("text", ["/plain/path.html", "/a b", "/ü", "/a%2F", "/~user/x;y=1",
                                  "/\x7f", "/a?b#c"])
def test_escape_uri_fast_check(text: str) -> None:
    raw = text.encode("utf-8", "surrogateescape")
    safe = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
               b"$-_.+!*'(),:;@&=/~")
    expected = "".join(chr(c) if c in safe else f"%{c:02x}" for c in raw)
    assert escape_uri(text) == expected


def test_http_date() -> None:
    when = calendar.timegm((2024, 2, 29, 13, 5, 9, 0, 0, 0))
    assert http_date(when) == "Thu, 29 Feb 2024 13:05:09 GMT"
    now = int(time.time())  # read once: two reads can straddle a second
    assert http_date(now) == time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(now))


def test_fast_and_explained_answers_agree_on_a_tree(tmp_path: Path) -> None:
    files = {
        ".htaccess": "RewriteEngine On\nRewriteCond %{HTTPS} !=on\nRewriteRule ^ - [E=P:http]\n"
                     "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\n"
                     "RewriteRule . index.php [L]\nHeader set X-P \"%{P}e\"\n"
                     "ExpiresActive On\nExpiresDefault A60\n",
        "index.php": "x", "a/b.css": "x", "a/.htaccess": "Options -Indexes\n",
        "d/.htaccess": "Require all denied\n", "d/x.txt": "x",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    site = site_for(load_path(tmp_path))
    for url in ("/", "/a/b.css", "/a/", "/a", "/nope", "/d/x.txt", "/./a/b.css", "/a%20b",
                "/index.php?x=1"):
        request = Request.from_url(url, headers={"Host": "localhost"})
        full, fast = evaluate(site, request), evaluate(site, request, trace=False)
        assert (fast.status, fast.location, fast.file) == (full.status, full.location,
                                                           full.file), url
        assert ({k: v for k, v in fast.headers.items() if k != "Expires"}
                == {k: v for k, v in full.headers.items() if k != "Expires"}), url
