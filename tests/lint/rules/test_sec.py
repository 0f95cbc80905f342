"""SEC rules: unit hits/misses, the docroot scan, and the facts checked on real Apache 2.4."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.lint.engine import lint_paths
from confmig.lint.finding import Finding, Severity
from confmig.lint.rules.sec.sec010_security_headers import misspelt
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot

FULL = "ServerRoot /etc/apache2\nListen 80\n"


def tree_findings(root: Path, code: str, config: Path | None = None) -> list[Finding]:
    result = lint_paths([root], config=config, use_cache=False)
    return [f for f in result.findings if f.code == code]


# -- SEC001 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("line, hit", [
    ("Options +Indexes", True), ("Options Indexes FollowSymLinks", True), ("Options All", True),
    ("Options -Indexes", False), ("Options All -Indexes", False), ("Options None", False),
    ("Options +FollowSymLinks", False), ("Options Indexes None", False),
])
def test_sec001(line: str, hit: bool) -> None:
    assert bool(finds("SEC001", line + "\n")) is hit


# -- SEC002 -----------------------------------------------------------------------------------

PROTECT_ALL = ('RewriteEngine On\nRewriteRule "(^|/)\\.(?!well-known/)" - [F]\n'
               '<FilesMatch "(\\.(bak|sql|swp)|~)$">\n Require all denied\n</FilesMatch>\n')


def test_sec002_lists_exposed_files_in_a_docroot(tmp_path: Path) -> None:
    write(tmp_path, {".htaccess": "Options -Indexes\n", ".git/HEAD": "ref\n", ".env": "A=1\n",
                     "wp-config.php.bak": "x", "db/dump.sql": "x", "a/b/notes.txt~": "x",
                     "index.php": "x", ".well-known/security.txt": "x"})
    [f] = tree_findings(tmp_path, "SEC002")
    assert f.severity is Severity.warning and f.file.endswith(".htaccess")
    for shown in ("/.git/", "/.env", "/wp-config.php.bak", "/db/dump.sql", "/a/b/notes.txt~"):
        assert shown in f.message
    assert "index.php" not in f.message and "well-known" not in f.message


def test_sec002_protections_that_count(tmp_path: Path) -> None:
    write(tmp_path, {".htaccess": PROTECT_ALL, ".git/HEAD": "ref\n", ".env": "A=1\n",
                     "x.bak": "x", "y.sql": "x"})
    assert not tree_findings(tmp_path, "SEC002")


def test_sec002_filesmatch_on_dotfiles_does_not_cover_the_git_directory(tmp_path: Path) -> None:
    write(tmp_path, {".htaccess": '<FilesMatch "^\\.">\n Require all denied\n</FilesMatch>\n',
                     ".git/HEAD": "ref\n", ".env": "A=1\n"})
    [f] = tree_findings(tmp_path, "SEC002")
    assert "/.git/" in f.message and "/.env" not in f.message


def test_sec002_htaccess_inside_the_directory_or_redirectmatch(tmp_path: Path) -> None:
    write(tmp_path, {".htaccess": "RedirectMatch 404 /\\.env$\n", ".env": "A=1\n",
                     ".git/HEAD": "ref\n", ".git/.htaccess": "Require all denied\n"})
    assert not tree_findings(tmp_path, "SEC002")


def test_sec002_conditions_are_evaluated(tmp_path: Path) -> None:
    rule = ('RewriteEngine On\nRewriteCond %{REQUEST_URI} "!(^|/)\\.well-known/"\n'
            "RewriteCond %{SCRIPT_FILENAME} -d [OR]\nRewriteCond %{SCRIPT_FILENAME} -f\n"
            'RewriteRule "(^|/)\\." - [F]\n')
    write(tmp_path, {".htaccess": rule, ".env": "A=1\n"})
    assert not tree_findings(tmp_path, "SEC002")
    (tmp_path / ".htaccess").write_text(rule.replace("-f\n", "-f\nRewriteCond %{HTTPS} on\n"))
    assert tree_findings(tmp_path, "SEC002")  # depends on the request: not credited


def test_sec002_single_file_reports_only_partial_protection() -> None:
    assert not finds("SEC002", "RewriteEngine On\nRewriteRule ^ index.php [L]\n")
    assert not finds("SEC002", PROTECT_ALL)
    [f] = finds("SEC002", '<Files ".env">\n Require all denied\n</Files>\n')
    assert f.severity is Severity.info and "/.git/" in f.message


# -- SEC003..SEC010 ------------------------------------------------------------------------


def test_sec003() -> None:
    assert finds("SEC003", "ServerSignature EMail\n")
    assert not finds("SEC003", "ServerSignature Off\n")


def test_sec004_and_sec005_explicit_and_missing_in_a_full_config() -> None:
    assert finds("SEC004", "ServerTokens Full\n", kind="server")
    assert not finds("SEC004", FULL + "ServerTokens ProductOnly\n", kind="server")
    assert finds("SEC004", FULL, kind="server")
    assert not finds("SEC004", "Listen 80\n", kind="server")  # a snippet, not a full config
    assert finds("SEC005", "TraceEnable extended\n", kind="server")
    assert finds("SEC005", FULL + "ServerTokens Prod\n", kind="server")
    assert not finds("SEC005", FULL + "TraceEnable off\n", kind="server")


def test_sec006_and_sec008_only_on_the_root_directory() -> None:
    text = ("<Directory />\n AllowOverride None\n Require all denied\n</Directory>\n"
            "<Directory /var/www>\n AllowOverride All\n Require all granted\n</Directory>\n")
    assert not finds("SEC006", text, kind="server") and not finds("SEC008", text, kind="server")
    root = "<Directory //>\n AllowOverride FileInfo\n Allow from all\n</Directory>\n"
    assert finds("SEC006", root, kind="server") and finds("SEC008", root, kind="server")


def test_sec007_upload_directories() -> None:
    assert finds("SEC007", "Options +ExecCGI\nAddHandler cgi-script .pl\n",
                 filename="wp-content/uploads/.htaccess")
    assert finds("SEC007", '<FilesMatch "\\.pl$">\n SetHandler cgi-script\n</FilesMatch>\n',
                 filename="files/.htaccess")
    assert not finds("SEC007", "Options +ExecCGI\n", filename="cgi-bin/.htaccess")
    assert not finds("SEC007", "Options -ExecCGI\nRemoveHandler .pl\n",
                     filename="uploads/.htaccess")
    text = '<LocationMatch "^/media/">\n SetHandler cgi-script\n</LocationMatch>\n'
    assert finds("SEC007", text, kind="server")


@pytest.mark.parametrize("line, hit", [
    ("php_flag display_errors On", True), ("php_value display_errors 1", True),
    ("php_admin_value display_startup_errors stdout", True),
    ("php_flag display_errors off", False), ("php_value error_reporting 1", False),
])
def test_sec009(line: str, hit: bool) -> None:
    assert bool(finds("SEC009", line + "\n")) is hit


@pytest.mark.parametrize("name, expected", [
    ("Referer-Policy", "Referrer-Policy"), ("X-Frame-Option", "X-Frame-Options"),
    ("Strict-Transport-Securty", "Strict-Transport-Security"),
    ("x-content-type-options", None), ("X-Powered-By", None), ("Cache-Control", None),
])
def test_sec010_misspellings(name: str, expected: str | None) -> None:
    assert misspelt(name) == expected


def test_sec010_unset_only_when_not_set_again() -> None:
    assert finds("SEC010", "Header unset Content-Security-Policy\n")
    assert not finds("SEC010", "Header onsuccess unset X-Frame-Options\n"
                               "Header always set X-Frame-Options DENY\n")
    assert not finds("SEC010", "Header unset X-XSS-Protection\nHeader unset X-Powered-By\n")
    # the unset is of a security header: it is not reported once that header is set anywhere
    assert not finds("SEC010", "Header unset Content-Security-Policy\n"
                               "Header set content-security-policy x\n")


def test_sec010_near_misses_as_before_the_length_check() -> None:
    from confmig.lint.rules.sec.sec010_security_headers import (
        SECURITY_HEADERS,
        distance,
        misspelt,
    )

    def reference(name: str) -> str | None:  # misspelt without its check of lengths
        if name.lower() in {h.lower() for h in SECURITY_HEADERS}:
            return None
        close = [h for h in SECURITY_HEADERS if abs(len(h) - len(name)) <= 2]
        if not close:
            return None
        best = min(close, key=lambda h: distance(name, h))
        return best if distance(name, best) <= (1 if len(best) < 12 else 2) else None

    names = [h[:cut] + extra + h[cut + drop:] for h in SECURITY_HEADERS
             for cut in range(0, len(h), 3) for drop in (0, 1, 2) for extra in ("", "x", "xy")]
    names += ["X" * n for n in range(40)]
    assert [misspelt(n) for n in names] == [reference(n) for n in names]
    assert sum(reference(n) is not None for n in names) > 100


def test_sec010_keeps_only_the_security_headers_set() -> None:
    """Issue 10: it kept every header name set, lowered (3.9 MB of a 1 MB file of distinct
    Header lines), though it asks the set only about security headers."""
    import tracemalloc
    from types import SimpleNamespace

    from confmig.lint.rules.sec.sec010_security_headers import SecurityHeaderMistake
    from confmig.syntax import parse_text

    text = "".join(f"Header set X-Name-{i:06d} v\n" for i in range(20_000))
    nodes = list(parse_text(text, "t/.htaccess").directives())
    # what the rule reads of a FileContext
    ctx = SimpleNamespace(read_by_apache=True, directive_nodes=lambda: nodes)
    rule = SecurityHeaderMistake()
    list(rule.check_file(ctx))  # the words read and kept on the nodes: not the rule's
    tracemalloc.start()
    try:
        assert not list(rule.check_file(ctx))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200_000, peak  # the old set: 3.9 MB for these 20,000 names


# -- real Apache ------------------------------------------------------------------------------

SITE = {
    "list/.htaccess": "Options +Indexes\n", "list/f.txt": "F\n",
    "listall/.htaccess": "Options All\n", "listall/f.txt": "F\n",
    "nolist/.htaccess": "Options -Indexes\n", "nolist/f.txt": "F\n",
    "open/.htaccess": "# nothing\n", "open/.git/HEAD": "ref\n", "open/.env": "A=1\n",
    "files/.htaccess": '<FilesMatch "^\\.">\n Require all denied\n</FilesMatch>\n',
    "files/.git/HEAD": "ref\n", "files/.env": "A=1\n",
    "closed/.htaccess": PROTECT_ALL, "closed/.git/HEAD": "ref\n", "closed/.env": "A=1\n",
    "closed/x.bak": "x",
    "sig/.htaccess": "ServerSignature On\n",
    # 2.2 access control in a subdirectory denies its dump: only the request model sees it
    "legacy/private/.htaccess": "Order deny,allow\nDeny from all\n",
    "legacy/private/db.sql": "dump", "legacy/private/.env": "A=1\n",
    "legacy/.env": "A=1\n",
}


@pytest.fixture(scope="module")
def site(apache_binary: ApacheBinary) -> Iterator[ApacheServer]:
    root = make_docroot(prefix="confmig-sec-")
    try:
        write(root, SITE)
        with ApacheServer(root, allow_override="All", extra_config="TraceEnable Off\n"
                                                                  "ServerTokens Prod\n") as s:
            yield s
    finally:
        shutil.rmtree(root, ignore_errors=True)


def status(server: ApacheServer, path: str, method: str = "GET") -> int:
    return http_get(server.base_url, path, method=method).status


@pytest.mark.apache
def test_sec001_listing_with_indexes_and_all(site: ApacheServer) -> None:
    assert finds("SEC001", SITE["listall/.htaccess"])
    for case in ("list", "listall"):
        resp = http_get(site.base_url, f"/{case}/")
        assert resp.status == 200 and "Index of" in resp.text
    assert status(site, "/nolist/") == 403


@pytest.mark.apache
def test_sec002_what_is_reachable(site: ApacheServer, tmp_path: Path) -> None:
    assert status(site, "/open/.git/HEAD") == 200 and status(site, "/open/.env") == 200
    assert status(site, "/files/.git/HEAD") == 200 and status(site, "/files/.env") == 403
    for path in ("/closed/.git/HEAD", "/closed/.env", "/closed/x.bak"):
        assert status(site, path) == 403, path
    assert status(site, "/legacy/private/.env") == 403 and status(site, "/legacy/.env") == 200
    for case, exposed in (("open", {"/.git/", "/.env"}), ("files", {"/.git/"}),
                          ("closed", set()), ("legacy", {"/.env"})):
        root = tmp_path / case
        write(root, {k.split("/", 1)[1]: v for k, v in SITE.items() if k.startswith(case + "/")})
        found = tree_findings(root, "SEC002")
        shown = {s for s in ("/.git/", "/.env") if found and s in found[0].message}
        assert shown == exposed, case
        if case == "legacy":
            assert "private" not in found[0].message


@pytest.mark.apache
def test_sec003_to_sec005_server_facts(site: ApacheServer, apache_binary: ApacheBinary) -> None:
    resp = http_get(site.base_url, "/sig/missing")
    assert resp.status == 404 and "Server at 127.0.0.1" in resp.text
    assert resp.headers["Server"] == "Apache"  # ServerTokens Prod
    assert status(site, "/", method="TRACE") == 405  # TraceEnable Off
    root = make_docroot(prefix="confmig-sec-")
    try:
        with ApacheServer(root) as default:  # neither set: Full tokens, TRACE on
            resp = http_get(default.base_url, "/", method="TRACE")
            assert resp.status == 200 and resp.text.startswith("TRACE / HTTP/1.1")
            assert resp.headers["Server"].startswith("Apache/2.4")
    finally:
        shutil.rmtree(root, ignore_errors=True)
