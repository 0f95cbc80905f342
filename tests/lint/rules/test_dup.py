"""DUP rules: repeated rewrite blocks across files and sections, repeated directives; the
"later wins / both apply" facts checked on real Apache 2.4."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.lint.engine import lint_paths
from confmig.lint.finding import Finding, Severity
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot

BLOCK = ("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
         "RewriteRule ^ index.php [L]\n")


def tree_findings(root: Path, code: str) -> list[Finding]:
    return [f for f in lint_paths([root], use_cache=False).findings if f.code == code]


# -- DUP001 -----------------------------------------------------------------------------------


def test_dup001_same_block_in_several_htaccess_files(tmp_path: Path) -> None:
    write(tmp_path, {"blog/.htaccess": BLOCK, "shop/.htaccess": "# shop\n" + BLOCK,
                     "wiki/.htaccess": BLOCK.replace("index.php", "wiki.php"),
                     ".htaccess": "Options -Indexes\n"})
    found = tree_findings(tmp_path, "DUP001")
    assert sorted(Path(f.file).parent.name for f in found) == ["blog", "shop"]
    blog = next(f for f in found if "blog" in f.file)
    assert "shop/.htaccess" in blog.message and blog.severity is Severity.info


def test_dup001_rewritebase_is_normalised(tmp_path: Path) -> None:
    def block(base: str) -> str:
        return (f"RewriteEngine On\nRewriteBase {base}\nRewriteCond %{{REQUEST_FILENAME}} !-f\n"
                f"RewriteRule ^ {base}index.php [L]\n")

    write(tmp_path, {"a/.htaccess": block("/a/"), "b/.htaccess": block("/b/")})
    assert len(tree_findings(tmp_path, "DUP001")) == 2


def test_dup001_directory_url_is_normalised_without_rewritebase(tmp_path: Path) -> None:
    write(tmp_path, {"a/.htaccess": BLOCK.replace("index.php", "/a/index.php"),
                     "b/.htaccess": BLOCK.replace("index.php", "/b/index.php")})
    assert len(tree_findings(tmp_path, "DUP001")) == 2


def test_dup001_blocks_are_grouped_by_their_lines(tmp_path: Path) -> None:
    """DUP001 groups blocks by a digest of their lines (issue 10: not a string per line):
    equal blocks are grouped and different ones not (the digest that this test once forced
    to collide is a 128-bit blake2b now, trusted as the lint cache trusts one)."""
    other = BLOCK.replace("index.php", "other.php")
    write(tmp_path, {"a/.htaccess": BLOCK, "b/.htaccess": other, "c/.htaccess": BLOCK,
                     "d/.htaccess": other, "e/.htaccess": BLOCK + "RewriteRule ^x - [F]\n"})
    found = tree_findings(tmp_path, "DUP001")
    named = {Path(f.file).parent.name: f.message for f in found}
    assert sorted(named) == ["a", "b", "c", "d"]
    assert "c/.htaccess" in named["a"] and "b/.htaccess" not in named["a"]
    assert "d/.htaccess" in named["b"] and "a/.htaccess" not in named["b"]


def test_dup001_needs_a_rule_and_two_copies() -> None:
    text = ("<Directory /a>\n RewriteEngine On\n</Directory>\n"
            "<Directory /b>\n RewriteEngine On\n</Directory>\n")
    assert not finds("DUP001", text, kind="server")
    assert not finds("DUP001", BLOCK)


# -- DUP002 -----------------------------------------------------------------------------------


def test_dup002_later_wins_reported_on_the_dead_line() -> None:
    [f] = finds("DUP002", "ErrorDocument 404 /a.html\nErrorDocument 500 /b.html\n"
                          "ErrorDocument 404 /c.html\n")
    assert f.line == 1 and "line 3" in f.message and f.severity is Severity.warning


@pytest.mark.parametrize("text", [
    "Header set X-A 1\nHeader always set X-A 2\n",          # different tables
    "Header add Link a\nHeader add Link b\n",                # add accumulates
    "Header set X-A 1 env=foo\nHeader set X-A 2\n",          # conditional
    "Options -Indexes\nOptions +FollowSymLinks\n",           # relative Options merge
    "RewriteEngine On\nRewriteEngine On\n",                  # not this rule's business
    "SetEnv A 1\nSetEnv B 2\n",
    "ExpiresByType text/css A60\nExpiresByType text/html A60\n",
])
def test_dup002_misses(text: str) -> None:
    assert not finds("DUP002", text)


def test_dup002_exact_repeat_and_sections() -> None:
    [f] = finds("DUP002", "AddType text/plain .log\nAddType text/plain .log\n")
    assert f.severity is Severity.info and f.line == 2
    text = "Header set X-A 1\n<Files a>\nHeader set X-A 2\n</Files>\n"
    assert not finds("DUP002", text)  # different sections: the Files one is more specific
    text = "<IfModule mod_headers.c>\nHeader set X-A 1\n</IfModule>\nHeader set X-A 2\n"
    assert finds("DUP002", text)  # <IfModule> is not a section of its own


def test_dup002_directoryindex_lines_add_up() -> None:
    [f] = finds("DUP002", "DirectoryIndex a.html\nDirectoryIndex b.html c.php\n")
    assert "a.html b.html c.php" in f.message and f.line == 2
    assert not finds("DUP002", "DirectoryIndex a.html\nDirectoryIndex disabled\n")


@pytest.mark.parametrize(("kind", "text", "dead", "later"), [
    ("server", "ServerName example.com\nServerSignature Off\nTraceEnable Off\n"
               "ServerTokens Prod\nTraceEnable On\n", "TraceEnable Off", "TraceEnable On"),
    ("htaccess", "Options None\nFileETag None\nFileETag All\n", "FileETag None", "FileETag All"),
    ("htaccess", "SetEnv A 1\nphp_value A 1\nphp_value A 2\n", "php_value A 1", "php_value A 2"),
    ("htaccess", "Header set X-A b\nRequestHeader set X-A b\nRequestHeader set X-A c\n",
     "RequestHeader set X-A b", "RequestHeader set X-A c"),
])
def test_dup002_equal_words_of_another_directive(kind: str, text: str, dead: str,
                                                 later: str) -> None:
    """A line whose words equal the line before's, under another directive name, has keys
    of its own (issue 10: the file's shared word list, met again, made DUP002 reuse the
    other directive's prints and miss the override).  The lines are written twice, at the
    top and in <Files>, so that each argument text is met twice and its words shared."""
    lines = text.count("\n")
    first = text.splitlines().index(dead) + 1
    second = text.splitlines().index(later) + 1
    found = finds("DUP002", f"{text}<Files a>\n{text}</Files>\n", kind=kind)
    where = "the server config" if kind == "server" else "this .htaccess"
    assert [(f.line, f.severity, f.message) for f in found] == [
        (first, Severity.warning, f"{dead} is overridden by line {second} ({later}) in "
                                  f"{where}: only the later one applies"),
        (first + lines + 1, Severity.warning,
         f"{dead} is overridden by line {second + lines + 1} ({later}) in <Files a>: "
         "only the later one applies"),
    ]


# -- real Apache ------------------------------------------------------------------------------

SITE = {
    "hdr/.htaccess": "Header set X-Test one\nHeader set X-Test two\n", "hdr/f.txt": "F\n",
    "idx/.htaccess": "DirectoryIndex a.html\nDirectoryIndex b.html\n", "idx/b.html": "BEE\n",
}


@pytest.fixture(scope="module")
def site(apache_binary: ApacheBinary) -> Iterator[ApacheServer]:
    root = make_docroot(prefix="confmig-dup-")
    try:
        write(root, SITE)
        with ApacheServer(root, allow_override="All") as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.apache
def test_dup002_later_header_wins_and_directoryindex_appends(site: ApacheServer) -> None:
    assert finds("DUP002", SITE["hdr/.htaccess"]) and finds("DUP002", SITE["idx/.htaccess"])
    assert http_get(site.base_url, "/hdr/f.txt").headers["X-Test"] == "two"
    resp = http_get(site.base_url, "/idx/")
    assert resp.status == 200 and resp.text == "BEE\n"
