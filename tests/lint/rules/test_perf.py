"""PERF rules: unit hits/misses, the .htaccess lookup count (measured with strace on real
Apache when strace is available) and the equivalences the rules suggest, on real Apache."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.bench.syscalls import trace_requests
from confmig.bench.targets.base import process_group
from confmig.lint.context import ServerLayout
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Finding
from confmig.lint.rules.perf.lookups import lookups
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot
from confmig.syntax import parse_text

DEEP = "/".join(f"d{i}" for i in range(1, 11))   # 10 levels below the docroot


def tree_findings(root: Path, code: str, config: Path | None = None) -> list[Finding]:
    return [f for f in lint_paths([root], config=config, use_cache=False).findings
            if f.code == code]


# -- PERF001 ----------------------------------------------------------------------------------


def test_perf001_lookup_formula() -> None:
    layout = ServerLayout.from_nodes(parse_text(
        "<Directory />\n AllowOverride None\n</Directory>\n"
        "<Directory /srv/www>\n AllowOverride All\n</Directory>\n"
        "<Directory /srv/www/a/b>\n AllowOverride None\n</Directory>\n").nodes)
    found = lookups("/srv/www/x/y", layout, None)
    assert found is not None and found.first == "/srv/www" and found.opens == 4
    # a deeper AllowOverride None stops the lookups there (and the file's own)
    found = lookups("/srv/www/a/b/c", layout, None)
    assert found is not None and found.opens == 2
    assumed = lookups(f"/var/www/{DEEP}", None, "/var/www")
    assert assumed is not None and assumed.opens == 12
    assert lookups("/srv/other", layout, None) is None


def test_perf001_tree_reports_the_deepest_directory(tmp_path: Path) -> None:
    write(tmp_path, {".htaccess": "Options -Indexes\n", f"{DEEP}/f.txt": "F\n",
                     "shallow/f.txt": "F\n"})
    [f] = tree_findings(tmp_path, "PERF001")
    assert "12 .htaccess paths" in f.message and "d10/" in f.message
    assert f.file.endswith(".htaccess")


def test_perf001_shallow_tree_is_fine(tmp_path: Path) -> None:
    write(tmp_path, {".htaccess": "Options -Indexes\n", "a/b/f.txt": "F\n"})
    assert not tree_findings(tmp_path, "PERF001")


def test_perf001_overrides_above_the_docroot() -> None:
    text = ("DocumentRoot /srv/www/site\n<Directory />\n AllowOverride None\n</Directory>\n"
            "<Directory /srv>\n AllowOverride FileInfo\n</Directory>\n")
    [f] = finds("PERF001", text, kind="server")
    assert f.line == 6 and "2 directories above it (/srv, /srv/www)" in f.message
    fixed = text.replace("<Directory /srv>", "<Directory /srv/www/site>")
    assert not finds("PERF001", fixed, kind="server")


@pytest.mark.apache
def test_perf001_count_matches_strace_on_real_apache(apache_binary: ApacheBinary) -> None:
    """The request's .htaccess open attempts, counted by bench's strace counter (one place
    reads strace's output): it traces the server's processes once their list is stable, on
    one keep-alive connection, and retries a trace a process it did not attach answered."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    root = make_docroot(prefix="confmig-perf-")
    try:
        write(root, {f"{DEEP}/f.txt": "F\n", "d1/.htaccess": "Options -Indexes\n"})
        with ApacheServer(root, allow_override="All", mpm="prefork") as server:
            traced = trace_requests(lambda: process_group(server.pid), server.base_url,
                                    [f"/{DEEP}/f.txt"], requests=3)
        if not traced.available and "ptrace not permitted" in (traced.reason or ""):
            pytest.skip(traced.reason)
        assert traced.available, traced.reason
        assert traced.htaccess_by_outcome == {"ENOENT": 10, "ENOTDIR": 1, "hit": 1}
        predicted = lookups(os.path.realpath(root / DEEP), None, os.path.realpath(root))
        assert predicted is not None and predicted.opens == traced.htaccess_opens == 12
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- PERF002..PERF006 -----------------------------------------------------------------------


def test_perf002() -> None:
    assert finds("PERF002", "HostnameLookups Double\n", kind="server")
    assert not finds("PERF002", "HostnameLookups Off\n", kind="server")


FRONT = ("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
         "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . /index.php [L]\n")


@pytest.mark.parametrize("text, hit", [
    (FRONT, True),
    ("RewriteEngine On\nRewriteBase /app/\nRewriteCond %{REQUEST_FILENAME} !-f\n"
     "RewriteRule ^ index.php [QSA,L]\n", True),
    (FRONT.replace("/index.php", "/index.php?q=$1"), False),   # passes the path on
    (FRONT.replace(". /index.php", "^(.*)$ /index.php/$1"), False),
    (FRONT.replace("!-d", "-d"), False),
    (FRONT.replace("[L]", "[R,L]"), False),
    (FRONT.replace("RewriteCond %{REQUEST_FILENAME} !-f\n", ""), False),  # no !-f
    (FRONT + "RewriteCond %{HTTP_HOST} x\nRewriteRule ^ - [F]\n", True),
])
def test_perf003(text: str, hit: bool) -> None:
    assert bool(finds("PERF003", text)) is hit


def test_perf003_suggests_the_rewritebase_path() -> None:
    [f] = finds("PERF003", "RewriteEngine On\nRewriteBase /app/\n"
                           "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^ index.php [L]\n")
    assert f.hint == "replace it with 'FallbackResource /app/index.php'"


@pytest.mark.parametrize("rule, hit", [
    ("RewriteRule ^old\\.html$ /new.html [R=301,L]", True),
    ("RewriteRule ^old$ https://example.com/new [R=302,L]", True),
    ("RewriteRule ^old$ /new [R=301]", False),                # no L: RW011's business
    ("RewriteRule ^old/(.*)$ /new/$1 [R=301,L]", False),      # a pattern, not a fixed path
    ("RewriteRule ^old$ /new [R=301,L,QSD]", False),
    ("RewriteRule ^old$ /new [R=301,L,NC]", False),
    ("RewriteRule ^old$ new [R=301,L]", False),               # relative target
    ("RewriteCond %{HTTPS} off\nRewriteRule ^old$ /new [R=301,L]", False),
])
def test_perf004(rule: str, hit: bool) -> None:
    assert bool(finds("PERF004", "RewriteEngine On\n" + rule + "\n")) is hit


def test_perf005_only_static_directives_and_enough_of_them() -> None:
    static = "AddType text/plain .log\nAddDefaultCharset utf-8\nFileETag None\n"
    assert finds("PERF005", static)
    assert not finds("PERF005", static + "Require all denied\n")
    assert not finds("PERF005", "FileETag None\n")
    assert not finds("PERF005", static, kind="server")


def test_perf006_either_half_missing() -> None:
    assert finds("PERF006", "ExpiresActive On\n")
    assert finds("PERF006", "ExpiresDefault A3600\n")
    both = "ExpiresActive On\n<FilesMatch \\.php$>\nExpiresActive Off\n</FilesMatch>\n" \
           "ExpiresDefault A3600\n"
    assert not finds("PERF006", both)


def test_perf006_server_config_halves_in_different_sections() -> None:
    text = "ExpiresActive On\n<Directory /var/www>\n ExpiresByType text/css A60\n</Directory>\n"
    assert not finds("PERF006", text, kind="server")


# -- real Apache ------------------------------------------------------------------------------

SITE = {
    "rw/.htaccess": FRONT.replace("/index.php", "/rw/index.php"),
    "fb/.htaccess": "FallbackResource /fb/index.php\n",
    "redir_rw/.htaccess": "RewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n",
    "redir_rm/.htaccess": "RedirectMatch 301 ^/redir_rm/old$ /new\n",
    "exp_on/.htaccess": "ExpiresActive On\n",
    "exp_by/.htaccess": 'ExpiresByType text/plain "access plus 1 hour"\n',
    "exp_both/.htaccess": 'ExpiresActive On\nExpiresByType text/plain "access plus 1 hour"\n',
}
for _case in ("rw", "fb"):
    SITE.update({f"{_case}/index.php": "FRONT\n", f"{_case}/real.txt": "REAL\n",
                 f"{_case}/dir/index.html": "DIR\n", f"{_case}/bare/x.txt": "X\n"})
for _case in ("exp_on", "exp_by", "exp_both"):
    SITE[f"{_case}/f.txt"] = "F\n"


@pytest.fixture(scope="module")
def site(apache_binary: ApacheBinary) -> Iterator[ApacheServer]:
    root = make_docroot(prefix="confmig-perf-")
    try:
        write(root, SITE)
        with ApacheServer(root, allow_override="All") as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.apache
def test_perf003_fallbackresource_matches_the_rewrite_block(site: ApacheServer) -> None:
    assert finds("PERF003", SITE["rw/.htaccess"])

    def outcome(case: str, path: str) -> tuple[int, str]:
        resp = http_get(site.base_url, f"/{case}{path}")
        return resp.status, resp.text

    for path in ("/real.txt", "/missing", "/missing/deeper.html", "/gone.php?x=1", "/dir/"):
        assert outcome("rw", path) == outcome("fb", path), path
    # The documented difference: a directory without an index file.
    assert "Index of" in outcome("rw", "/bare/")[1]
    assert outcome("fb", "/bare/") == (200, "FRONT\n")


@pytest.mark.apache
def test_perf004_redirectmatch_sends_the_same_redirect(site: ApacheServer) -> None:
    [f] = finds("PERF004", SITE["redir_rw/.htaccess"])
    assert "RedirectMatch 301 ^/old$ /new" in f.message
    rw = http_get(site.base_url, "/redir_rw/old?q=1")
    rm = http_get(site.base_url, "/redir_rm/old?q=1")
    assert (rw.status, rw.headers["Location"]) == (rm.status, rm.headers["Location"])
    assert rw.headers["Location"].endswith("/new?q=1")


@pytest.mark.apache
def test_perf006_needs_both_halves(site: ApacheServer) -> None:
    assert finds("PERF006", SITE["exp_on/.htaccess"]) and finds("PERF006", SITE["exp_by/.htaccess"])
    assert not finds("PERF006", SITE["exp_both/.htaccess"])
    for case, has_expires in (("exp_on", False), ("exp_by", False), ("exp_both", True)):
        resp = http_get(site.base_url, f"/{case}/f.txt")
        assert ("Expires" in resp.headers) is has_expires, case
