"""What the RW rules say Apache does, checked on real Apache 2.4 on 127.0.0.1.

One server serves every .htaccess case (``/<case>/…``); server-context rules get a second
one.  Each test lints the exact text Apache runs, so a rule and its claim are tested
together.  Skipped only when apache2 is not installed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from confmig.lint.testing import finds, write_tree
from confmig.servers import (
    ApacheBinary,
    ApacheServer,
    Response,
    apache_config_test,
    default_modules,
    http_get,
    make_docroot,
)

pytestmark = pytest.mark.apache

ON = "RewriteEngine On\n"

# case -> files (".htaccess" and what it serves); each case is a directory of the docroot.
CASES: dict[str, dict[str, str]] = {
    "rw001": {".htaccess": ON + "RewriteRule ^(a b.txt [L]\n", "b.txt": "B\n"},
    "rw002": {".htaccess": ON + "RewriteRule ^/foo$ /rw002/bar.txt [L]\n", "bar.txt": "BAR\n"},
    "rw002ok": {".htaccess": ON + "RewriteRule ^foo$ /rw002ok/bar.txt [L]\n", "bar.txt": "B\n"},
    "rw003": {".htaccess": ON + "RewriteRule ^a$ b.txt [L]\nRewriteCond %{HTTP_HOST} ^nomatch$\n",
              "b.txt": "B\n"},
    "rw004": {".htaccess": ON + "RewriteRule ^old$ new [R=301,L]\n"},
    "rw004ok": {".htaccess": ON + "RewriteBase /rw004ok/\nRewriteRule ^old$ new [R=301,L]\n"},
    "rw005": {".htaccess": ON + "RewriteRule ^ - [L]\nRewriteRule ^a$ b.txt\n", "b.txt": "B\n"},
    "rw006": {".htaccess": ON + "RewriteRule ^a$ b.txt [L,NoQuery]\n", "b.txt": "B\n"},
    "rw006d": {".htaccess": ON + "RewriteRule ^a$ b.txt [L,Dummy]\n", "b.txt": "B\n"},
    "rw007fr": {".htaccess": ON + "RewriteRule ^a$ /x [F,R=301]\n"},
    "rw007rpt": {".htaccess": ON + "RewriteRule ^a$ /rw007rpt/b.txt [R=302,PT]\n", "b.txt": "B\n"},
    "rw007ln": {".htaccess": ON + "RewriteRule ^a$ b.txt [L,N]\n", "b.txt": "B\n"},
    "rw007qs": {".htaccess": ON + "RewriteRule ^a$ /t?x=1 [R=302,QSA,QSD,L]\n"},
    "rw008": {".htaccess": ON + "RewriteRule ^a$ https://%{HTTP_HOST}%{REQUEST_URI} [R=301,L]\n"},
    "rw009off": {".htaccess": "RewriteEngine Off\nRewriteRule ^a$ b.txt [L]\n", "b.txt": "B\n"},
    "rw009none": {".htaccess": "RewriteRule ^a$ b.txt [L]\n", "b.txt": "B\n"},
    "rw009inh": {".htaccess": ON, "sub/.htaccess": "RewriteRule ^a$ b.txt [L]\n",
                 "sub/b.txt": "B\n"},
    "rw010keep": {".htaccess": ON + "RewriteRule ^sub/a$ /rw010keep/t.txt [L]\n", "t.txt": "T\n",
                  "sub/.htaccess": "Options -Indexes\n"},
    "rw010drop": {".htaccess": ON + "RewriteRule ^sub/a$ /rw010drop/t.txt [L]\n", "t.txt": "T\n",
                  "sub/.htaccess": ON},
    "rw010inh": {".htaccess": ON + "RewriteRule ^sub/a$ /rw010inh/t.txt [L]\n"
                              "RewriteRule (^|/)b$ /rw010inh/t.txt [L]\n", "t.txt": "T\n",
                 "sub/.htaccess": ON + "RewriteOptions Inherit\n"},
    "rw011": {".htaccess": ON + "RewriteRule ^a$ /rw011/b.txt [R=302]\n"
                                "RewriteRule b\\.txt$ /rw011/c.txt [R=302,L]\n"},
    "rw012": {".htaccess": ON + "RewriteRule ^a$ /rw012/b.txt [R,L]\n"},
    "rw014": {".htaccess": ON + "RewriteRule ^a$ http://127.0.0.1:9/ [P,L]\n"},
    "rw015": {".htaccess": ON + "RewriteCond %{HTTP_X_FORWARDED_PROTO} ^https$\n"
                                "RewriteRule ^a$ b.txt [L]\n", "b.txt": "B\n"},
    "rw015ok": {".htaccess": ON + "RewriteCond %{HTTP:X-Forwarded-Proto} ^https$\n"
                                  "RewriteRule ^a$ b.txt [L]\n", "b.txt": "B\n"},
    "rw016": {".htaccess": ON + "RewriteRule ^a$ x$1y.txt [L]\n", "xy.txt": "XY\n"},
    "rw016c": {".htaccess": ON + "RewriteCond %{HTTP_HOST} ^(.+)$\nRewriteCond %{HTTPS} off\n"
                                 "RewriteRule ^a$ x%1y.txt [L]\n", "xy.txt": "XY\n"},
}


@contextmanager
def serve(files: Mapping[str, str], **kwargs: object) -> Iterator[ApacheServer]:
    root = make_docroot(prefix="confmig-rw-")
    try:
        write_tree(root, files)
        with ApacheServer(root, **kwargs) as server:  # type: ignore[arg-type]
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def site(apache_binary: ApacheBinary) -> Iterator[ApacheServer]:
    tree = {f"{case}/{rel}": text for case, files in CASES.items() for rel, text in files.items()}
    with serve(tree, allow_override="All") as server:
        yield server


def get(server: ApacheServer, path: str, **headers: str) -> Response:
    return http_get(server.base_url, path, headers=headers or None)


def htaccess(case: str, rel: str = ".htaccess") -> str:
    return CASES[case][rel]


def test_rw001_invalid_regex_is_a_500(site: ApacheServer) -> None:
    assert finds("RW001", htaccess("rw001"))
    assert get(site, "/rw001/b.txt").status == 500
    assert "cannot compile regular expression" in site.error_log_text()


def test_rw001_and_rw006_stop_a_server_config() -> None:
    assert not apache_config_test("RewriteEngine On\nRewriteRule ^/(x - [L]\n").ok
    result = apache_config_test("RewriteEngine On\nRewriteRule ^/x - [L,Bogus]\n")
    assert not result.ok and "unknown flag 'Bogus'" in result.message


def test_rw002_slash_pattern_never_matches_in_htaccess(site: ApacheServer) -> None:
    assert finds("RW002", htaccess("rw002")) and not finds("RW002", htaccess("rw002ok"))
    assert get(site, "/rw002/foo").status == 404
    assert get(site, "/rw002ok/foo").text == "B\n"


def test_rw003_dangling_condition_is_ignored(site: ApacheServer) -> None:
    assert finds("RW003", htaccess("rw003"))
    assert get(site, "/rw003/a").text == "B\n"  # the condition would have refused it


def test_rw004_relative_redirect_carries_the_filesystem_path(site: ApacheServer) -> None:
    assert finds("RW004", htaccess("rw004")) and not finds("RW004", htaccess("rw004ok"))
    resp = get(site, "/rw004/old")
    assert resp.status == 301
    assert resp.headers["Location"].endswith(f"{site.docroot}/rw004/new")
    assert get(site, "/rw004ok/old").headers["Location"] == f"{site.base_url}/rw004ok/new"


def test_rw005_rules_after_catch_all_never_run(site: ApacheServer) -> None:
    assert finds("RW005", htaccess("rw005"))
    assert get(site, "/rw005/a").status == 404
    assert get(site, "/rw005/b.txt").status == 200


def test_rw006_unknown_flag_is_a_500_but_d_flags_pass_silently(site: ApacheServer) -> None:
    assert finds("RW006", htaccess("rw006"))
    assert get(site, "/rw006/b.txt").status == 500
    assert "unknown flag 'NoQuery'" in site.error_log_text()
    [warning] = finds("RW006", htaccess("rw006d"))
    assert "ignores" in warning.message
    assert get(site, "/rw006d/a").text == "B\n"


def test_rw007_what_apache_does_with_conflicting_flags(site: ApacheServer) -> None:
    for case in ("rw007fr", "rw007rpt", "rw007ln", "rw007qs"):
        assert finds("RW007", htaccess(case)), case
    resp = get(site, "/rw007fr/a")  # [F,R=301]: the last flag's status, and no Location
    assert resp.status == 301 and "Location" not in resp.headers
    assert get(site, "/rw007rpt/a").status == 400  # [R,PT] in .htaccess
    assert get(site, "/rw007ln/a").text == "B\n"  # [L,N]: N ignored, no loop
    resp = get(site, "/rw007qs/a?q=9")  # [QSA,QSD]: the request's query string is dropped
    assert resp.headers["Location"].endswith("/t?x=1")


def test_rw008_location_follows_the_host_header(site: ApacheServer) -> None:
    assert finds("RW008", htaccess("rw008"))
    resp = get(site, "/rw008/a", Host="evil.example")
    assert resp.headers["Location"] == "https://evil.example/rw008/a"


def test_rw009_engine_off_or_missing_ignores_rules_unless_inherited(site: ApacheServer) -> None:
    assert finds("RW009", htaccess("rw009off")) and finds("RW009", htaccess("rw009none"))
    assert get(site, "/rw009off/a").status == 404
    assert get(site, "/rw009none/a").status == 404
    assert get(site, "/rw009inh/sub/a").text == "B\n"  # the parent's RewriteEngine On


def test_rw009_parent_engine_on_silences_the_rule(tmp_path: Path) -> None:
    from confmig.lint.engine import lint_paths

    write_tree(tmp_path, CASES["rw009inh"])
    assert not [f for f in lint_paths([tmp_path], use_cache=False).findings
                if f.code == "RW009"]
    (tmp_path / ".htaccess").write_text("# nothing\n")
    assert [f for f in lint_paths([tmp_path], use_cache=False).findings if f.code == "RW009"]


def test_rw010_child_rewrite_directives_drop_the_parents_rules(site: ApacheServer,
                                                               tmp_path: Path) -> None:
    from confmig.lint.engine import lint_paths

    assert get(site, "/rw010keep/sub/a").text == "T\n"
    assert get(site, "/rw010drop/sub/a").status == 404
    # Inherit brings the rules back, but they match paths relative to sub/.
    assert get(site, "/rw010inh/sub/a").status == 404
    assert get(site, "/rw010inh/sub/b").text == "T\n"
    for case, expected in (("rw010keep", False), ("rw010drop", True), ("rw010inh", False)):
        root = tmp_path / case
        write_tree(root, CASES[case])
        found = [f for f in lint_paths([root], use_cache=False).findings if f.code == "RW010"]
        assert bool(found) is expected, case


def test_rw011_later_rules_rewrite_the_redirect(site: ApacheServer) -> None:
    assert finds("RW011", htaccess("rw011"))
    assert get(site, "/rw011/a").headers["Location"].endswith("/rw011/c.txt")


def test_rw012_bare_r_is_a_302(site: ApacheServer) -> None:
    assert finds("RW012", htaccess("rw012"))
    assert get(site, "/rw012/a").status == 302


def test_rw014_proxy_flag_without_mod_proxy_is_a_403(site: ApacheServer,
                                                     apache_binary: ApacheBinary) -> None:
    assert finds("RW014", htaccess("rw014"))
    assert get(site, "/rw014/a").status == 403
    assert "without proxy enabled" in site.error_log_text()
    modules = [*default_modules(apache_binary), "proxy"]
    assert finds("RW014", htaccess("rw014"), modules=[f"{m}_module" for m in modules])
    with serve({"p/.htaccess": htaccess("rw014")}, modules=modules) as server:
        assert get(server, "/p/a").status == 500
        assert "AH01144" in server.error_log_text()


def test_rw015_unknown_variable_is_empty(site: ApacheServer) -> None:
    assert finds("RW015", htaccess("rw015")) and not finds("RW015", htaccess("rw015ok"))
    assert get(site, "/rw015/a", **{"X-Forwarded-Proto": "https"}).status == 404
    assert get(site, "/rw015ok/a", **{"X-Forwarded-Proto": "https"}).text == "B\n"


def test_rw016_missing_groups_are_empty(site: ApacheServer) -> None:
    assert finds("RW016", htaccess("rw016"))
    assert get(site, "/rw016/a").text == "XY\n"
    # %1 belongs to the *last* matching regex condition ('off' has no group).
    assert finds("RW016", htaccess("rw016c"))
    assert get(site, "/rw016c/a").text == "XY\n"


SERVER_RULES = r"""
RewriteEngine On
RewriteCond %{REQUEST_FILENAME} !-f
RewriteRule ^/a/(.*)$ /index.html [L]
RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-f
RewriteRule ^/(b/.*)$ /index.html [L]
"""


def test_rw013_file_tests_in_server_context_see_the_url(apache_binary: ApacheBinary) -> None:
    [finding] = finds("RW013", SERVER_RULES, kind="server")
    assert finding.line == 3
    files = {"index.html": "INDEX\n", "a/real.txt": "A\n", "b/real.txt": "B\n"}
    with serve(files, extra_config=SERVER_RULES) as server:
        assert get(server, "/a/real.txt").text == "INDEX\n"  # exists, yet rewritten
        assert get(server, "/b/real.txt").text == "B\n"
