"""``%{ENV:NAME}`` set by earlier ``[E=]`` rules (h5bp's www → non-www redirect) and
``-d [OR] -f`` written as nginx's ``-e`` (h5bp's hidden-file rule), on real Apache and nginx."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.servers import make_docroot
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

WWW = {"Host": "www.example.com"}
#: h5bp's block, with a query string instead of %{HTTPS} choosing the scheme (the test
#: servers speak plain http only).
ENV_ALWAYS = ("RewriteEngine On\n"
              "RewriteCond %{QUERY_STRING} ^s$\n"
              "RewriteRule ^ - [E=PROTO:https]\n"
              "RewriteCond %{QUERY_STRING} !^s$\n"
              "RewriteRule ^ - [E=PROTO:http]\n"
              "RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
              "RewriteRule ^ %{ENV:PROTO}://%1%{REQUEST_URI} [R=301,L]\n")
#: Only one setter: without ?s no rule of the pass sets PROTO before it is read.
ENV_SOMETIMES = ("RewriteEngine On\n"
                 "RewriteCond %{QUERY_STRING} ^s$\n"
                 "RewriteRule ^ - [E=PROTO:https]\n"
                 "RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
                 "RewriteRule ^ %{ENV:PROTO}://%1%{REQUEST_URI} [R=301,L]\n")
HIDDEN = ("RewriteEngine On\n"
          "RewriteCond %{REQUEST_FILENAME} -d [OR]\n"
          "RewriteCond %{REQUEST_FILENAME} -f\n"
          "RewriteRule (^|/)\\. - [F]\n")


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngenv-", files={"a.html": "a\n", "d/b.html": "b\n"})
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _write(root: Path, htaccess: str) -> None:
    (root / ".htaccess").write_text(htaccess)
    (root / ".htaccess").chmod(0o644)


def test_env_set_by_earlier_rules_is_a_redirect_under_the_host_condition_only(
        root: Path, apache_binary: object, nginx_binary: object) -> None:
    _write(root, ENV_ALWAYS)
    converted = convert_docroot(root)
    # only %{REQUEST_URI} with a '%', '?', '#', space… Apache escapes in the Location (403)
    assert [n for n in converted.result.untranslatable if not (
        n.answer == 403 and n.reason.startswith("an [R] target with ${uri}"))] == [], \
        converted.result.untranslatable
    requests = [("/a.html", WWW), ("/a.html?s", WWW), ("/d/b.html?x=1", WWW),
                ("/missing", {"Host": "WWW.Example.com:8080"}), ("/a.html", {}),
                ("/a.html?s", {"Host": "example.com"})]
    with both(root) as pair:
        seen = []
        for path, headers in requests:
            a, b = pair.ask(path, headers)
            assert (b.status, b.headers.get("location")) == \
                (a.status, a.headers.get("location")), (path, headers)
            seen.append((a.status, a.headers.get("location")))
    assert seen == [(301, "http://example.com/a.html"), (301, "https://example.com/a.html?s"),
                    (301, "http://example.com/d/b.html?x=1"),
                    (301, "http://Example.com:8080/missing"), (200, None), (200, None)]


def test_env_a_rule_may_read_before_it_is_set_is_denied_there_and_announced(
        root: Path, apache_binary: object, nginx_binary: object) -> None:
    _write(root, ENV_SOMETIMES)
    converted = convert_docroot(root)
    assert [n.reason for n in converted.result.untranslatable
            if n.reason.startswith("%{ENV:PROTO} before a rule")] != []
    with both(root) as pair:
        a, b = pair.ask("/a.html?s", WWW)  # set first: exact
        assert (b.status, b.headers.get("location")) == (301, "https://example.com/a.html?s")
        assert (a.status, a.headers.get("location")) == (301, "https://example.com/a.html?s")
        a, b = pair.ask("/a.html", WWW)  # not set: Apache reads it elsewhere; nginx refuses
        assert b.status == 403 and a.status != 200
        a, b = pair.ask("/a.html", {})  # the Host condition does not hold: served
        assert (a.status, b.status) == (200, 200)


@pytest.mark.parametrize("options", ["", "Options -FollowSymLinks\n"])
def test_directory_or_file_is_one_stat_with_the_same_answers(
        root: Path, options: str, apache_binary: object, nginx_binary: object) -> None:
    """nginx's -e is is_file || is_dir || is_link, and is_link is never set (its stat
    follows links): the same answers as Apache for files, directories and links to them.
    With -FollowSymLinks (nginx: disable_symlinks on) Apache's per-directory rules answer
    403 to every request, and so does nginx."""
    _write(root, options + HIDDEN)
    (root / ".hidden").write_text("h\n")
    (root / ".hidden").chmod(0o644)
    (root / "d" / ".dir").mkdir()
    (root / "d" / ".dir" / "index.html").write_text("i\n")
    for path in (root / "d" / ".dir", root / "d" / ".dir" / "index.html"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    os.symlink(root / ".hidden", root / ".lf")
    os.symlink(root / "d", root / ".ld")
    text = convert_docroot(root).output.body
    if options:  # mod_rewrite forbids: no rule is translated
        assert "mod_rewrite forbids every request (403)" in text
    else:
        assert "if (-e $request_filename)" in text and "-f $request_filename" not in text
    assert ("disable_symlinks on;" in text) == bool(options)
    urls = {"/.hidden": 403, "/d/.dir/": 403, "/d/.dir": 403, "/.lf": 403, "/.ld/": 403,
            "/.nope": 404, "/a.html": 200, "/d/b.html": 200}
    with both(root) as pair:
        for url, status in urls.items():
            a, b = pair.ask(url)
            # without FollowSymLinks Apache's per-directory rules answer 403 to everything
            assert (a.status, b.status) == ((403, 403) if options else (status, status)), url
