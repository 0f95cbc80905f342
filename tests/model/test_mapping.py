"""URL normalisation, decoding and mod_alias matching (confmig.model.mapping, .request)."""

from __future__ import annotations

import pytest

from confmig.model.mapping import (
    AliasEntry,
    alias_matches,
    finish_redirect,
    server_url_base,
    try_alias_list,
    unescape_path,
)
from confmig.model.request import Request, RequestError, parse_header_option, split_host
from confmig.model.rewrite.regex import Regex
from confmig.model.urlpath import normalize_path, url_base


@pytest.mark.parametrize(("raw", "expected"), [
    ("/a/b", "/a/b"),
    ("/a/./b", "/a/b"),
    ("/a/../b", "/b"),
    ("/a/b/..", "/a/"),
    ("//a///b", "/a/b"),
    ("/%61/b", "/a/b"),  # unreserved letters are decoded first
    ("/a/%2e%2e/b", "/b"),
    ("/a/.%2e/b", "/b"),
    ("/a/%2F", "/a/%2F"),  # reserved: left for the decoder
    ("/..", None),  # above the root
    ("/a/../../b", None),
    ("/a/%zz", None),  # bad escape
    ("relative", None),
])
def test_normalize_path_follows_ap_normalize_path(raw: str, expected: str | None) -> None:
    assert normalize_path(raw) == expected


def test_merge_slashes_off_keeps_doubled_slashes() -> None:
    assert normalize_path("//a//b", merge_slashes=False) == "//a//b"


@pytest.mark.parametrize(("raw", "mode", "expected"), [
    ("/a%20b", "off", ("/a b", 0)),
    ("/a%2Fb", "off", ("/a/b", 404)),
    ("/a%2Fb", "on", ("/a/b", 0)),
    ("/a%2Fb", "nodecode", ("/a%2Fb", 0)),
    ("/a%00", "on", ("/a\0", 404)),
    ("/a%zz", "off", ("/a%zz", 400)),
])
def test_unescape_path_statuses(raw: str, mode: str, expected: tuple[str, int]) -> None:
    assert unescape_path(raw, mode) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("uri", "fake", "length"), [
    ("/static/app.js", "/static", 7),
    ("/static", "/static", 7),
    ("/staticx/app.js", "/static", 0),
    ("/static//img", "/static/", 9),
    ("//static/x", "/static", 8),
    ("/other", "/static", 0),
])
def test_alias_matches_like_mod_alias(uri: str, fake: str, length: int) -> None:
    assert alias_matches(uri, fake) == length


def test_redirect_list_escapes_the_rest_and_regex_targets() -> None:
    plain = AliasEntry("redirect", "/old", "http://x.example/new", None, 302, None)
    hit = try_alias_list("/old/a b", [plain])
    assert hit is not None and hit.found == "http://x.example/new/a%20b"
    regex = AliasEntry("redirect", "^/p/(\\d+)$", "/item?id=$1 x", Regex("^/p/(\\d+)$"), 301,
                       None)
    hit = try_alias_list("/p/42", [regex])
    assert hit is not None and hit.found == "/item?id=42 x"  # the query is not escaped


def test_finish_redirect_absolute_url_and_query() -> None:
    request = Request.from_url("/old?x=1", headers={"Host": "example.com:8080"}, port=8080)
    assert finish_redirect("/new", request, "srv") == "http://example.com:8080/new?x=1"
    assert finish_redirect("/new?y=2", request, "srv") == "http://example.com:8080/new?y=2"
    assert finish_redirect("/new", request, "srv", allow_relative=True) == "/new?x=1"
    assert finish_redirect("not-a-url", request, "srv") is None


def test_server_url_base_omits_the_default_port() -> None:
    assert server_url_base(Request.from_url("http://a.example/x"), "srv") == "http://a.example"
    req = Request.from_url("/x", headers={"Host": "b.example"}, port=8080)
    assert server_url_base(req, "srv") == "http://b.example:8080"


@pytest.mark.parametrize(("https", "host", "port", "expected"), [
    (False, "a.example", 80, "http://a.example"),
    (True, "a.example", 443, "https://a.example"),
    (True, "a.example", 80, "https://a.example:80"),
    (False, "::1", 8080, "http://[::1]:8080"),
    (False, "[::1]", 80, "http://[::1]"),
])
def test_url_base_is_ap_construct_url(https: bool, host: str, port: int, expected: str) -> None:
    """One function builds ``scheme://host[:port]`` for mod_alias, mod_dir and mod_rewrite."""
    assert url_base(https, host, port) == expected


def test_request_from_url_parts() -> None:
    req = Request.from_url("https://Example.COM:8443/a%20b?q=1#frag")
    assert (req.path, req.query, req.host, req.host_port, req.port, req.https) == (
        "/a%20b", "q=1", "example.com", 8443, 8443, True)
    assert Request.from_url("/p").query is None
    assert Request.from_url("/p?").query == ""
    assert Request.from_url("http://h.example?x").path == "/"
    with pytest.raises(RequestError):
        Request.from_url("/a b")
    with pytest.raises(RequestError):
        Request.from_url("ftp://h/x")


def test_headers_are_case_insensitive_and_host_parsing() -> None:
    req = Request.from_url("/", headers=[("X-A", "1"), ("x-a", "2"), ("HOST", "Www.X.org.")])
    assert req.headers.get("x-A") == "1, 2"
    assert req.host == "www.x.org"
    assert split_host("[::1]:81") == ("::1", 81)
    assert parse_header_option("Accept:  text/html ") == ("Accept", "text/html")
    with pytest.raises(RequestError):
        parse_header_option("no colon")
