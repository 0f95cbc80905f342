"""Whole requests through the model on a docroot with Debian's defaults (no server needed;
the differential suite checks the same facts against real Apache)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from confmig.load import load_path
from confmig.model.evaluate import evaluate, fixup_vary, site_for
from confmig.model.request import Request


def site(root: Path, files: dict[str, str]):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return site_for(load_path(root))


def ask(target, url: str, **headers: str):
    return evaluate(target, Request.from_url(url, headers={"Host": "localhost", **headers}))


FRONT = ("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
         "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule ^ index.php [L]\n")


def test_front_controller_and_trailing_slash(tmp_path: Path) -> None:
    s = site(tmp_path, {".htaccess": FRONT, "index.php": "x", "css/a.css": "x"})
    assert (ask(s, "/blog/post").status, ask(s, "/blog/post").file) == (200, "index.php")
    assert ask(s, "/css/a.css").file == "css/a.css"
    answer = ask(s, "/css")
    assert (answer.status, answer.location) == (301, "http://localhost/css/")
    assert ask(s, "/").file == "index.php"  # Debian's DirectoryIndex has index.php


def test_applied_directives_in_merge_order_with_locations(tmp_path: Path) -> None:
    s = site(tmp_path, {".htaccess": "Header set X-A 1\n", "sub/.htaccess": "Header set X-A 2\n",
                        "sub/f.txt": "x"})
    answer = ask(s, "/sub/f.txt")
    assert answer.headers["X-A"] == "2"
    headers = [(a.directive, a.args, Path(a.file).name, a.line) for a in answer.applied
               if a.directive == "Header"]
    assert headers == [("Header", ("set", "X-A", "1"), ".htaccess", 1),
                       ("Header", ("set", "X-A", "2"), ".htaccess", 1)]
    assert [a.file for a in answer.applied if a.directive == "Header"] == [
        str(tmp_path / ".htaccess"), str(tmp_path / "sub" / ".htaccess")]


def test_forbidden_directive_answers_500_and_none_means_unread(tmp_path: Path) -> None:
    s = site(tmp_path, {"a/.htaccess": "php_value x 1\n", "a/f.txt": "x"})
    answer = ask(s, "/a/f.txt")
    assert answer.status == 500
    assert any("Invalid command 'php_value'" in step.message for step in answer.steps)


def test_loop_ends_at_limit_internal_recursion(tmp_path: Path) -> None:
    s = site(tmp_path, {".htaccess": "RewriteEngine On\nRewriteRule ^(.*)$ x/$1 [L]\n"})
    answer = ask(s, "/a")
    assert answer.status == 500
    assert sum(step.phase == "redirect" for step in answer.steps) == 11  # 10 + the refusal


def test_error_document_keeps_the_status(tmp_path: Path) -> None:
    s = site(tmp_path, {".htaccess": "ErrorDocument 404 /e/404.html\n", "e/404.html": "x"})
    answer = ask(s, "/nope")
    assert (answer.status, answer.file) == (404, "e/404.html")
    s2 = site(tmp_path / "t", {".htaccess": 'ErrorDocument 403 "Go away"\n'
                                            "Require all denied\n"})
    answer = ask(s2, "/x")
    assert (answer.status, answer.body) == (403, "Go away")


def test_bad_requests(tmp_path: Path) -> None:
    s = site(tmp_path, {"a.txt": "x"})
    assert ask(s, "/../a.txt").status == 400
    assert ask(s, "/a%2Fb").status == 404
    assert ask(s, "/a%zz").status == 400
    assert ask(s, "/./a.txt").file == "a.txt"


def test_trace_off_gives_the_same_answer(tmp_path: Path) -> None:
    s = site(tmp_path, {".htaccess": FRONT + "ExpiresActive On\nExpiresDefault A60\n"
                                             "Header set X-A 1\n", "index.php": "x"})
    for url in ("/", "/x/y", "/index.php", "/nope.css"):
        full = ask(s, url)
        fast = evaluate(s, Request.from_url(url, headers={"Host": "localhost"}), trace=False)
        assert (fast.status, fast.location, fast.file) == (full.status, full.location,
                                                           full.file)
        drop = {"Expires"}
        assert {k: v for k, v in fast.headers.items() if k not in drop} == {
            k: v for k, v in full.headers.items() if k not in drop}
        assert fast.steps == [] and fast.applied == []


def test_host_names_without_dns_are_reported(tmp_path: Path) -> None:
    """With lookups off (explain --no-dns) a host-name decision is announced, not guessed;
    with lookups on it is decided (checked against Apache in the differential suite)."""
    s = site(tmp_path, {".htaccess": "Require host example.com\n", "a.txt": "x"})
    answer = evaluate(s, Request.from_url("/a.txt", headers={"Host": "localhost"}))
    assert answer.status == 403
    assert not any("Require host" in u for u in answer.unsupported)
    offline = dataclasses.replace(Request.from_url("/a.txt", headers={"Host": "localhost"}),
                                  dns_lookups=False)
    answer = evaluate(s, offline)
    assert answer.status == 403
    assert any("Require host" in u and "DNS lookups are off" in u for u in answer.unsupported)


@pytest.mark.parametrize(("value", "expected"), [
    ("Accept-encoding,Accept-Encoding", "Accept-encoding"),
    ("A, B, a", "A,B"),
])
def test_fixup_vary(value: str, expected: str) -> None:
    assert fixup_vary(value) == expected


def test_a_relative_directory_is_read_from_slash_and_the_explanation_says_so(
        tmp_path: Path) -> None:
    """``<Directory site>`` is ``/site/`` (confmig.apache.paths; Apache-checked in
    tests/convert/test_relative_directory_apache.py), not ``<ServerRoot>/site``: its
    ``Require all denied`` does not reach the docroot, and the trace points the trap out."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("hi\n")
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"ServerRoot {tmp_path}\nListen 127.0.0.1:8080\nDocumentRoot site\n"
                    "<Directory site>\n    Require all denied\n</Directory>\n")
    answer = evaluate(load_path(conf), Request.from_url("http://127.0.0.1:8080/index.html"))
    assert answer.status == 200 and answer.file == "index.html"
    notes = [s for s in answer.steps if "relative path" in s.message]
    assert len(notes) == 1 and "reads it as /site/" in notes[0].message
    assert (notes[0].file, notes[0].line) == (str(conf), 4)
