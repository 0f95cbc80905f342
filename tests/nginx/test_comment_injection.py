"""The output's comments name their Apache source (directories, files, URL paths): a
directory named ``x\\nreturn 200 pwned; #`` made ``return 200 pwned;`` a directive of the
converted server — every request answered 200 — where Apache denies that directory.
Comments now carry such text escaped (confmig.convert.nginx.comments); a quoted parameter
keeps its newline, as nginx reads it."""

from __future__ import annotations

import shutil

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.comments import comment, line
from confmig.servers import NginxServer, http_get, make_docroot

HOSTILE = "x\nreturn 200 pwned; #"


def test_a_directory_name_never_becomes_a_directive(nginx_binary: object) -> None:
    root = make_docroot(prefix="confmig-inject-", files={
        f"{HOSTILE}/.htaccess": "Require all denied\n", f"{HOSTILE}/index.html": "secret\n",
        "index.html": "hello\n"})
    try:
        conversion = convert_docroot(root)
        text = conversion.result.text
        assert "\\x0areturn 200 pwned; #" in text  # named, escaped
        out = conversion.output
        with NginxServer(out.body, str(root), http_config=out.http,
                         binary=nginx_binary) as server:
            home = http_get(server.base_url, "/")
            denied = http_get(server.base_url, "/x%0Areturn%20200%20pwned;%20%23/index.html")
        assert (home.status, home.body) == (200, b"hello\n")
        assert denied.status == 403 and b"pwned" not in denied.body
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(("text", "shown"), [
    ("return 403;  # /a\nb", "return 403;  # /a\\x0ab"),
    ('location = "/x\nreturn 1; #" {', 'location = "/x\nreturn 1; #" {'),  # quoted: a value
    ('if ($a = "a\\"#\n") { return 1; }  # c\nd', 'if ($a = "a\\"#\n") { return 1; }  # c\\x0ad'),
    ("rewrite ^/a#b /c;", "rewrite ^/a#b /c;"),  # a # inside a word starts no comment
    ("plain;", "plain;"),
])
def test_line(text: str, shown: str) -> None:
    assert line(text) == shown


def test_comment() -> None:
    assert comment("/a\nb\rc\x1b") == "/a\\x0ab\\x0dc\\x1b"
