"""RequestHeader (issue 12): mod_headers edits the request in the fixups phase, after
mod_rewrite's per-directory rules, access control and SetEnvIf have read it; what reads it
afterwards is the handler and the output filters.  A header only a script reads
(h5bp's and Drupal's ``RequestHeader unset Proxy``) changes nothing nginx answers when it
runs no script (no ``--php-fpm``: the PHP note already says scripts are sent as they are) —
a note; one the server itself reads (``Range``, ``If-*``, ``Accept-Encoding``: the static
handler and mod_deflate) stays announced, as does any with ``--php-fpm``.
Real Apache against real nginx."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.conftest import SiteMaker
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {"a.txt": "a text file of some length\n", "b.html": "<p>page</p>\n",
         "sub/c.txt": "c\n", "sub/index.html": "<p>index</p>\n"}
PATHS = ["/a.txt", "/b.html", "/sub/", "/sub/c.txt", "/sub", "/missing", "/sub/missing"]
ASKED: list[dict[str, str]] = [
    {}, {"Proxy": "http://127.0.0.1:9/"}, {"X-Forwarded-Host": "evil.example"},
    {"Range": "bytes=0-3"}, {"Accept-Encoding": "gzip"},
]


def convert(root: Path, *more: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root), *more])
    return result.exit_code, result.stderr.splitlines()


SCRIPT_ONLY = {
    "drupal": "<IfModule mod_headers.c>\n  RequestHeader unset Proxy\n</IfModule>\n",
    "set-and-env": "SetEnvIf Request_URI \\.txt$ TXT\n"
                   "RequestHeader set X-Forwarded-Host example.org env=TXT\n"
                   "RequestHeader append X-Extra one\n",
}


@pytest.mark.parametrize("case", list(SCRIPT_ONLY))
def test_a_header_only_scripts_read_changes_nothing_without_php(
        case: str, make_site: SiteMaker, apache_binary: object, nginx_binary: object) -> None:
    root = make_site({**FILES, ".htaccess": SCRIPT_ONLY[case]})
    code, lines = convert(root)
    assert [line for line in lines if line.startswith("note:") and "RequestHeader" in line]
    assert not [line for line in lines if line.startswith("untranslatable:")
                and "RequestHeader" in line], lines
    if case == "drupal":
        assert code == 0, lines
    with both(root) as pair:
        for path in PATHS:
            for headers in ASKED:
                a, b = pair.ask(path, headers)
                assert a.status == b.status, (path, headers, a.status, b.status)
                if a.status == 200:
                    assert a.body == b.body, (path, headers)
                    assert a.headers.get("Content-Encoding") == \
                        b.headers.get("Content-Encoding"), (path, headers)
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert not [r for r in report.differing if not r.announced], report.summary()


SERVER_READ = {
    "range": "RequestHeader set Range bytes=0-3\n",
    "if-none-match": "RequestHeader set If-None-Match *\n",
    "h5bp-accept-encoding": "SetEnvIfNoCase ^(Accept-EncodXng|X-cept-Encoding)$ "
                            "^((gzip|deflate)\\s*,?\\s*)+$ HAVE_AE\n"
                            "RequestHeader append Accept-Encoding \"gzip,deflate\" env=HAVE_AE\n"
                            "AddOutputFilterByType DEFLATE text/plain\n",
    "early": "RequestHeader unset Proxy early\n",
}


@pytest.mark.parametrize("case", list(SERVER_READ))
def test_a_header_the_server_reads_stays_announced(case: str, make_site: SiteMaker) -> None:
    root = make_site({**FILES, ".htaccess": SERVER_READ[case]})
    code, lines = convert(root)
    assert code == 1
    assert [line for line in lines if line.startswith("untranslatable:")
            and "RequestHeader" in line], lines


def test_range_set_by_requestheader_is_what_apache_answers(make_site: SiteMaker,
                                                          apache_binary: object,
                                                          nginx_binary: object) -> None:
    """Why: Apache's static handler reads the Range RequestHeader set (206), nginx's not."""
    root = make_site({**FILES, ".htaccess": SERVER_READ["range"]})
    with both(root) as pair:
        a, b = pair.ask("/a.txt")
        assert (a.status, a.body) == (206, b"a te")
        assert b.status == 200


def test_with_php_fpm_it_stays_announced(make_site: SiteMaker) -> None:
    """A script sees the header (HTTP_PROXY): not translated for php-fpm yet."""
    root = make_site({**FILES, "index.php": "<?php echo 1;\n",
                 ".htaccess": SCRIPT_ONLY["drupal"]})
    code, lines = convert(root, "--php-fpm", "127.0.0.1:9000")
    assert code == 1
    assert [line for line in lines if line.startswith("untranslatable:")
            and "RequestHeader" in line], lines


VARIABLES = {
    # ownCloud: a variable only its PHP reads
    "owncloud": "<IfModule mod_env.c>\n  SetEnv modHeadersAvailable true\n</IfModule>\n",
    # h5bp's CORS images: the variable also feeds a Header env= (translated by a map)
    "h5bp-cors": "<FilesMatch \"\\.(gif|png)$\">\n  SetEnvIf Origin \":\" IS_CORS\n"
                 "  Header set Access-Control-Allow-Origin \"*\" env=IS_CORS\n"
                 "</FilesMatch>\n",
}


@pytest.mark.parametrize("case", list(VARIABLES))
def test_a_variable_only_scripts_read_changes_nothing_without_php(
        case: str, make_site: SiteMaker, apache_binary: object, nginx_binary: object) -> None:
    files = {**FILES, "i.png": "png", ".htaccess": VARIABLES[case]}
    root = make_site(files)
    code, lines = convert(root)
    assert code == 0, lines
    assert [line for line in lines if line.startswith("note:") and "SetEnv" in line], lines
    with both(root) as pair:
        for path in [*PATHS, "/i.png"]:
            for headers in [{}, {"Origin": "http://a.example"}]:
                a, b = pair.ask(path, headers)
                assert a.status == b.status, (path, headers)
                assert a.headers.get("Access-Control-Allow-Origin") == \
                    b.headers.get("Access-Control-Allow-Origin"), (path, headers)
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()


def test_a_variable_a_module_reads_stays_announced(make_site: SiteMaker) -> None:
    root = make_site({**FILES, ".htaccess": "SetEnvIf User-Agent Old no-gzip\n"})
    code, lines = convert(root)
    assert code == 1
    assert [line for line in lines if line.startswith("untranslatable:") and "SetEnvIf" in line]
