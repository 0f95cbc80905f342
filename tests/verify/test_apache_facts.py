"""The Apache facts the converter relies on, each checked on the real server: the same
configuration as .htaccess files and as <Directory> blocks answers the same."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from confmig.convert.httpd.render import KEEP_500_LINES
from confmig.servers import ApacheServer, http_get, make_docroot

pytestmark = pytest.mark.apache

FILES = {"a.txt": "A", "b.txt": "B", "sub/a.txt": "SUBA", "sub/b.txt": "SUBB",
         "sub/deep/b.txt": "DEEPB"}
ROOT_RULES = "RewriteEngine On\nRewriteRule ^(.*)a\\.txt$ $1b.txt [L]\n"


@pytest.fixture
def root(apache_binary: object) -> Iterator[str]:
    path = make_docroot(files=FILES)
    yield str(path)
    shutil.rmtree(path, ignore_errors=True)


def answers(root: str, htaccess: dict[str, str], paths: list[str], *,
            as_directory: bool, extra: str = "") -> list[tuple[int, str]]:
    """Status and body per path, with *htaccess* as files or as <Directory> blocks."""
    written = []
    blocks = ""
    for rel, text in htaccess.items():
        directory = f"{root}/{rel}".rstrip("/")
        if as_directory:
            blocks += f'<Directory "{directory}">\n{text}</Directory>\n'
        else:
            with open(f"{directory}/.htaccess", "w") as handle:
                handle.write(text)
            written.append(f"{directory}/.htaccess")
    try:
        with ApacheServer(root, allow_override="None" if as_directory else "All",
                          extra_config=extra.replace("@ROOT@", root) + blocks) as server:
            out = []
            for path in paths:
                response = http_get(server.base_url, path)
                out.append((response.status, response.text if response.status == 200 else ""))
            return out
    finally:
        for path in written:
            os.remove(path)


def same(root: str, htaccess: dict[str, str], paths: list[str],
         extra: str = "") -> list[tuple[int, str]]:
    first = answers(root, htaccess, paths, as_directory=False, extra=extra)
    assert answers(root, htaccess, paths, as_directory=True, extra=extra) == first
    return first


def test_a_child_without_rewrite_directives_keeps_the_parents_rules(root: str) -> None:
    got = same(root, {"": ROOT_RULES, "sub": "Header set X-Child 1\n"}, ["/sub/a.txt"])
    assert got == [(200, "SUBB")]  # the root's rule applies below, with the root's prefix


def test_a_child_with_only_rewriteengine_on_drops_them(root: str) -> None:
    assert same(root, {"": ROOT_RULES, "sub": "RewriteEngine On\n"},
                ["/a.txt", "/sub/a.txt"]) == [(200, "B"), (200, "SUBA")]


def test_rewriteoptions_inherit_appends_the_parents_rules(root: str) -> None:
    child = "RewriteOptions Inherit\nRewriteRule ^x$ b.txt\n"
    assert same(root, {"": ROOT_RULES, "sub": child}, ["/sub/a.txt", "/sub/x"]) == [
        (200, "SUBB"), (200, "SUBB")]


def test_rewriteengine_is_inherited_by_a_child_with_rules(root: str) -> None:
    assert same(root, {"": ROOT_RULES, "sub": "RewriteRule ^x$ b.txt\n"},
                ["/sub/x", "/sub/a.txt"]) == [(200, "SUBB"), (200, "SUBA")]


def test_without_rewritebase_the_physical_path_is_the_prefix(root: str) -> None:
    got = same(root, {"sub": "RewriteEngine On\nRewriteRule ^i$ b.txt\n"}, ["/sub/i"])
    assert got == [(200, "SUBB")]


def test_htaccess_merges_after_a_directory_block_for_the_same_path(root: str) -> None:
    existing = '<Directory "@ROOT@/sub">\nHeader set X-A server\nRewriteEngine On\n' \
               "RewriteRule ^a\\.txt$ deep/b.txt\n</Directory>\n"
    # the .htaccess rules replace the server block's (merged after it), in both forms
    got = same(root, {"sub": "RewriteEngine On\nRewriteRule ^a\\.txt$ b.txt\n"},
               ["/sub/a.txt"], extra=existing)
    assert got == [(200, "SUBB")]


def test_a_forbidden_directive_answers_500_below_its_directory(root: str) -> None:
    with open(f"{root}/sub/.htaccess", "w") as handle:
        handle.write("Options -Indexes\n")
    with ApacheServer(root, allow_override="FileInfo") as server:
        statuses = [http_get(server.base_url, p).status
                    for p in ("/a.txt", "/sub/a.txt", "/sub", "/sub/deep/b.txt", "/sub/nope")]
    assert statuses == [200, 500, 500, 500, 500]


def test_keep_500_require_answers_500_where_rewrite_r500_would_not(root: str) -> None:
    """The --keep-500 lines answer 500 in the authorization phase for every request: also a
    directory without its slash (under [R=500] mod_dir redirects first) and a file a
    server-wide <Files> section denies (under [R=500] its 403 comes first)."""
    files = '<FilesMatch "\\.txt$">\nRequire all denied\n</FilesMatch>\n'
    keep = "".join(f"{line}\n" for line in KEEP_500_LINES)
    block = f'<Directory "{root}/sub">\n{keep}</Directory>\n'
    rewrite = f'<Directory "{root}/sub">\nRewriteEngine On\nRewriteRule ^ - [R=500]\n' \
              "</Directory>\n"
    paths = ["/sub/", "/sub", "/sub/a.txt", "/sub/deep/b.txt", "/a.txt"]
    with ApacheServer(root, extra_config=files + block) as server:
        assert [http_get(server.base_url, p).status for p in paths] == [500, 500, 500, 500, 403]
    with ApacheServer(root, extra_config=files + rewrite) as server:
        assert [http_get(server.base_url, p).status for p in paths] == [500, 301, 403, 403, 403]


@pytest.mark.parametrize(("name", "server", "converted"), [
    ("location", '<Location "/sub">\nRequire all granted\n</Location>\n', [500] * 5),
    ("locationmatch", '<LocationMatch "^/">\nRequire all granted\n</LocationMatch>\n',
     [500] * 5),
    ("if", '<If "true">\nRequire all granted\n</If>\n', [500] * 5),
    # the one order the kept 500 cannot win: an <If> inside a <Location> is merged later still
    ("if-in-location", '<Location "/sub">\n<If "true">\nRequire all granted\n</If>\n'
     "</Location>\n", [200, 301, 200, 404, 200]),
])
def test_the_kept_500_against_server_sections_that_authorize(
        root: str, name: str, server: str, converted: list[int]) -> None:
    """A broken .htaccess answers 500 whatever the server's <Location>/<If> sections
    authorize (the directory walk fails first); the kept-500 lines do the same, except
    under an <If> nested in a <Location>."""
    paths = ["/sub/", "/sub", "/sub/a.txt", "/sub/nope", "/sub/deep/b.txt"]
    with open(f"{root}/sub/.htaccess", "w") as handle:
        handle.write("Bogus directive\n")
    try:
        with ApacheServer(root, allow_override="All", extra_config=server) as original:
            assert [http_get(original.base_url, p).status for p in paths] == [500] * 5
    finally:
        os.remove(f"{root}/sub/.htaccess")
    keep = "".join(f"{line}\n" for line in KEEP_500_LINES)
    block = f'<Directory "{root}/sub">\n{keep}</Directory>\n'
    with ApacheServer(root, allow_override="None", extra_config=server + block) as server_:
        assert [http_get(server_.base_url, p).status for p in paths] == converted, name
