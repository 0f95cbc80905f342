"""Ask real Apache how it reads each lexical construct, and check the parser agrees.

Every case is a `.htaccess` whose meaning is observable through one response
header: `Header set X-T VALUE`.  The expectation is derived from confmig's own
parse of the file — the value it reads, or a 500 when confmig reports a syntax
error or extra arguments — so a parser that reads a line differently from
Apache fails here.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator

import pytest

from confmig.apache.modules import ModuleSet
from confmig.load import ReadState, load_htaccess
from confmig.servers import ApacheServer, http_get, make_docroot
from confmig.syntax import Directive, Section

CASES: dict[str, bytes] = {
    "double-quotes": b'Header set X-T "a b"\n',
    "single-quotes": b"Header set X-T 'a b'\n",
    "adjacent-quotes": b'Header set X-T "a""b"\n',  # 'a' then a bad condition 'b'
    "unbalanced-trailing-quote": b'Header set X-T "runs to the end\n',
    "escaped-quote": b'Header set X-T "say \\"hi\\""\n',
    "bare-backslashes": b"Header set X-T a\\\\b\\c\n",
    "mid-line-hash": b"Header set X-T value # a trailing comment\n",
    "hash-glued": b"Header set X-T value#notacomment\n",
    "continued-directive": b"Header set X-T con\\\ntinued\n",
    "continued-comment": b"# a comment \\\nHeader set X-T hidden\nHeader set X-T shown\n",
    "crlf": b"# windows\r\nHeader set X-T crlf\r\n",
    "crlf-continued": b"Header set X-T a\\\r\nb\r\n",
    "utf8-bom": b"\xef\xbb\xbfHeader set X-T bom\n",
    "tabs": b"\tHeader\tset\tX-T\ttabbed\t\n",
    "non-ascii-comment": "# café ünïcode — ok\nHeader set X-T after\n".encode(),
    "latin1-comment": b"# caf\xe9\nHeader set X-T latin1\n",
    "case-insensitive": b"<ifmodule MOD_HEADERS.C>\nhEaDeR set X-T mixed\n</IFMODULE>\n",
    "ifversion-lt": b"<IfVersion < 2.4>\nHeader set X-T old\n</IfVersion>\n"
                    b"<IfVersion >= 2.4>\nHeader set X-T new\n</IfVersion>\n",
    "empty-section": b"<IfModule mod_headers.c>\n</IfModule>\nHeader set X-T empty\n",
    "long-line": b"Header set X-T " + b"x" * 8000 + b"\n",
    "no-final-newline": b"Header set X-T last",
    "mismatched-section": b"<IfModule mod_headers.c>\nHeader set X-T m\n</Files>\n",
    "unclosed-true-conditional": b"<IfModule mod_headers.c>\nHeader set X-T u\n",
    "unclosed-false-conditional": b"<IfModule mod_nothere.c>\nHeader set X-T f\n",
    "unclosed-directory-like": b"<Files x>\nHeader set X-T f\n",
    "ifmodule-name-case": b"<IfModule MOD_HEADERS.C>\nHeader set X-T no\n</IfModule>\n"
                          b"Header set X-T yes\n",
    "close-with-trailing-word": b"<IfModule mod_headers.c>\nHeader set X-T c\n</IfModule> x\n",
    "stray-close": b"</IfModule>\nHeader set X-T s\n",
    "close-with-space": b"<IfModule mod_headers.c>\nHeader set X-T c\n</IfModule >\n",
}


SERVER_MODULES = ModuleSet.debian_default()
for _extra in ("headers_module", "rewrite_module", "expires_module"):
    SERVER_MODULES.add(_extra)


def expected(data: bytes) -> tuple[int, str | None]:
    """What confmig says Apache will answer: (status, X-T value)."""
    with tempfile.NamedTemporaryFile(suffix=".htaccess") as handle:
        handle.write(data)
        handle.flush()
        loaded = load_htaccess(handle.name, ReadState(modules=SERVER_MODULES.copy()),
                               environ={})
    if not loaded.ok:
        return 500, None
    value = None
    for node in loaded.nodes:
        if isinstance(node, Section):
            return 500, None  # no other section is used in these cases
        if isinstance(node, Directive):
            if node.lname != "header":
                return 500, None  # Invalid command
            if len(node.args) > 3 and not node.args[3].startswith(("env=", "expr=")):
                return 500, None
            value = node.args[2]
    return 200, value


@pytest.fixture(scope="module")
def server(apache_binary) -> Iterator[ApacheServer]:
    files: dict[str, str | bytes] = {}
    for name, htaccess in CASES.items():
        files[f"{name}/.htaccess"] = htaccess
        files[f"{name}/index.html"] = name
    docroot = make_docroot(files=files)
    try:
        with ApacheServer(docroot, allow_override="All", modules=None) as srv:
            yield srv
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_apache_reads_the_line_as_confmig_does(server: ApacheServer, name: str) -> None:
    status, value = expected(CASES[name])
    response = http_get(server.base_url, f"/{name}/index.html")
    assert response.status == status, server.error_log_text()[-2000:]
    if status == 200:
        assert response.headers.get("X-T") == value


def test_expectations_are_not_trivial() -> None:
    """The cases above cover both outcomes and several distinct values."""
    outcomes = {name: expected(data) for name, data in CASES.items()}
    assert outcomes["adjacent-quotes"] == (500, None)
    assert outcomes["mid-line-hash"] == (500, None)
    assert outcomes["unbalanced-trailing-quote"] == (200, "runs to the end")
    assert outcomes["continued-comment"] == (200, "shown")
    assert outcomes["continued-directive"] == (200, "continued")
    assert outcomes["ifversion-lt"] == (200, "new")
    assert outcomes["close-with-space"] == (500, None)
    assert outcomes["utf8-bom"] == (500, None)
    assert outcomes["unclosed-true-conditional"] == (200, "u")
    assert outcomes["unclosed-false-conditional"] == (500, None)
    assert outcomes["ifmodule-name-case"] == (200, "yes")
