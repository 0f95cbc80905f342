"""Apache's line reader (confmig/syntax/reader.py) against real Apache, through the whole
model: each case is an ``.htaccess`` in its own directory; Apache's answer for the directory's
``index.html`` and for its ``sub/`` directory (no index: a listing unless ``Options -Indexes``
holds) is compared with what ``explain`` says — so the parser, the loader and the model agree
with Apache on line length limits, NUL bytes, CR-only endings and a backslash at the end of
the file.  The server-config side (16 MiB lines, Include of a non-regular file, nesting) is
asked of ``apache2 -t``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.load import load_config
from confmig.model.explain import explain_request
from confmig.servers import ApacheServer, apache_config_test, http_get, make_docroot
from confmig.syntax.parser import MAX_SECTION_DEPTH

PRE = b"Header set X-T "
NUL = b"Options -Indexes\0"


def long_line(total: int, newline: bool = True) -> bytes:
    """A Header line of ``total`` bytes before its newline."""
    return PRE + b"x" * (total - len(PRE)) + (b"\n" if newline else b"")


CASES: dict[str, bytes] = {
    # Line length: 8,192 bytes with the newline is the longest .htaccess line.
    "len8191": long_line(8191),
    "len8192": long_line(8192),
    "len8192-no-newline": long_line(8192, newline=False),
    "len8193-no-newline": long_line(8193, newline=False),
    "comment8192": b"#" + b"x" * 8191 + b"\nHeader set X-T ok\n",
    "crlf8191": PRE + b"x" * (8190 - len(PRE)) + b"\r\n",
    "crlf8192": PRE + b"x" * (8191 - len(PRE)) + b"\r\n",
    "continued8191": PRE + b"x" * (4000 - len(PRE)) + b"\\\n" + b"y" * 4191 + b"\n",
    "continued8192": PRE + b"x" * (4000 - len(PRE)) + b"\\\n" + b"y" * 4192 + b"\n",
    "second-line-long": b"Header set X-T a\n#" + b"z" * 9000 + b"\n",
    # NUL: the line ends there; the rest of what one read returned is dropped.
    "nul-end": NUL + b"\n",
    "nul-junk": NUL + b" +Indexes junk\n",
    "nul-mid-word": b"Opt\0ions -Indexes\n",
    "nul-then-continuation": NUL + b"\\\n+Indexes\n",
    "nul-in-continued-line": b"Options \\\n-Indexes\0junk\nHeader set X-T after\n",
    "nul-first": b"\0Options +Indexes\nOptions -Indexes\n",
    "nul-in-comment": b"# x\0\\\nOptions -Indexes\n",
    # ... and a NUL line longer than the read buffer (206 bytes at first) goes on as a line.
    "nul-tail-fits": NUL + b"A" * 185 + b" x\n",
    "nul-tail-split": NUL + b"A" * 188 + b" x\n",
    "nul-tail-split-later": NUL + b"A" * 250 + b" x\n",
    "nul-after-grown-buffer": b"#" + b"c" * 300 + b"\n" + NUL + b"A" * 590 + b" x\n",
    "nul-past-grown-buffer": b"#" + b"c" * 300 + b"\n" + NUL + b"A" * 610 + b" x\n",
    "nul-section-own-buffer": b"#" + b"c" * 1000 + b"\n<IfModule mod_headers.c>\n" + NUL
                              + b"A" * 300 + b" x\n</IfModule>\n",
    "nul-after-section": b"#" + b"c" * 1000 + b"\n<IfModule mod_headers.c>\n</IfModule>\n"
                         + NUL + b"A" * 300 + b" x\n",
    "last-line-one-short": PRE + b"x" * (206 - len(PRE)),  # read, then EOF after a growth
    # White space is apr_isspace's six characters: \x1c-\x1f and UTF-8's no-break space are
    # part of a word (a directive name Apache does not know: 500), not separators.
    "x1c-alone": b"\x1c\n",
    "x1f-between": b"Options\x1f-Indexes\n",
    "nbsp-between": b"Options\xc2\xa0-Indexes\n",
    "x1c-ends-no-word": b"Options -Indexes\x1c\n",
    # CR alone does not end a line.
    "cr-only": b"Header set X-T a\rHeader set X-T b\r",
    "cr-only-options": b"Options -Indexes\rHeader set X-T b\r",
    # A backslash at the end of the file.
    "backslash-eof": b"Header set X-T a\\",
    "backslash-newline-eof": b"Header set X-T a\\\n",
    "backslash-crlf-eof": b"Header set X-T a\\\r\n",
    "section-backslash-eof": b"<IfModule mod_headers.c>\nHeader set X-T s\n</IfModule>\\",
    "section-backslash-newline-eof": b"<IfModule mod_headers.c>\nHeader set X-T s\n"
                                     b"</IfModule>\\\n",
    "files-backslash-eof": b"<Files index.html>\nHeader set X-T f\n</Files>\\",
    "files-backslash-newline-eof": b"<Files index.html>\nHeader set X-T f\n</Files>\\\n",
    "continued-into-close": b"<IfModule mod_headers.c>\nHeader set X-T s\\\n</IfModule>\n",
    # Closing a false conditional skips the rest of the closing line; a true one does not.
    "false-close-with-words": b"<IfModule mod_nothere.c>\nHeader set X-T no\n</IfModule> x\n"
                              b"Header set X-T yes\n",
    "true-close-with-words": b"<IfModule mod_headers.c>\nHeader set X-T no\n</IfModule> x\n",
}
PATHS = ("index.html", "sub/")


@pytest.fixture(scope="module")
def server(apache_binary) -> Iterator[ApacheServer]:
    files: dict[str, str | bytes] = {}
    for name, htaccess in CASES.items():
        files[f"{name}/.htaccess"] = htaccess
        files[f"{name}/index.html"] = name
        files[f"{name}/sub/x.txt"] = "x"
    docroot = make_docroot(files=files)
    try:
        with ApacheServer(docroot, allow_override="All", modules=None) as srv:
            yield srv
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


@pytest.mark.apache
@pytest.mark.parametrize("name", sorted(CASES))
def test_explain_reads_the_htaccess_as_apache_does(server: ApacheServer, name: str) -> None:
    for path in PATHS:
        response = http_get(server.base_url, f"/{name}/{path}")
        answer = explain_request(f"/{name}/{path}", config=server.conf_path)
        assert answer.status == response.status, (path, server.error_log_text()[-1500:])
        if response.status == 200 and path == "index.html":
            assert answer.headers.get("X-T") == response.headers.get("X-T"), path


def test_the_cases_cover_both_answers() -> None:
    """Not a tautology: the cases above include 500s and honoured NUL lines (403 listings)."""
    assert any(b"\0" in data for data in CASES.values())
    assert len(CASES["len8192"]) == 8193 and len(CASES["len8191"]) == 8192


# -- the server configuration ----------------------------------------------------------------

SERVER_MAX = 16 * 1024 * 1024


@pytest.mark.apache
@pytest.mark.parametrize(("length", "ok"), [(SERVER_MAX - 1, True), (SERVER_MAX, False)])
def test_server_config_line_limit_is_16_mib(apache_binary, tmp_path: Path, length: int,
                                            ok: bool) -> None:
    site = tmp_path / "site.conf"
    site.write_bytes(b"#" + b"x" * (length - 1) + b"\nServerAdmin a@b\n")
    result = ApacheServer(None, server_config=site, modules=None).config_test()
    assert result.ok is ok, result.message[-300:]
    loaded = load_config(site)
    assert loaded.ok is ok
    if not ok:
        assert "Line too long" in result.message
        assert [str(e) for e in loaded.errors] == [
            f"{site}:1:1: Error reading {site} at line 1: Line too long"]


@pytest.mark.apache
@pytest.mark.parametrize("target", ["/dev/zero", "/dev/full"])
def test_include_of_a_device_is_refused(apache_binary, tmp_path: Path, target: str) -> None:
    result = apache_config_test(f"Include {target}\n")
    assert not result.ok
    assert f"Access to file {target} denied by server: not a regular file" in result.message
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"ServerName x\nInclude {target}\n")
    loaded = load_config(conf)
    assert [(e.line, e.message) for e in loaded.errors] == [(2, (
        f"Could not open configuration file {target}: Access to file {target} denied by "
        f"server: not a regular file"))]


@pytest.mark.apache
def test_include_of_dev_null_is_allowed(apache_binary, tmp_path: Path) -> None:
    assert apache_config_test("Include /dev/null\n").ok
    conf = tmp_path / "httpd.conf"
    conf.write_text("Include /dev/null\n")
    assert load_config(conf).ok


@pytest.mark.apache
def test_define_expansion_has_no_limit_in_apache(apache_binary) -> None:
    """ap_resolve_env does not cap the substituted line: 24 doublings (32 MiB) are read.
    confmig stops at 16 MiB (tests/test_load_limits.py), a limit of its own."""
    text = "Define X ab\n" + "Define X ${X}${X}\n" * 24 + "ServerAdmin x\n"
    assert apache_config_test(text).ok


@pytest.mark.apache
def test_nesting_apache_reads_and_confmig_caps(apache_binary) -> None:
    """Apache reads 5,000 nested <IfModule> and fails on 50,000 (it crashes: C recursion in
    ap_build_cont_config, no message); confmig reads MAX_SECTION_DEPTH levels and refuses more
    with a one-line error of its own."""
    def nested(depth: int) -> str:
        return ("<IfModule mod_headers.c>\n" * depth + "ServerAdmin a@b\n"
                + "</IfModule>\n" * depth)

    assert apache_config_test(nested(5000)).ok
    crashed = apache_config_test(nested(50_000))
    assert not crashed.ok and "Syntax error" not in crashed.message
    assert MAX_SECTION_DEPTH < 5000


@pytest.mark.apache
@pytest.mark.parametrize(("text", "ok", "words"), [
    # NUL ends the line in the server config too: ServerName gets one argument.
    (b"ServerName a\0 b c\n", True, ["ServerName", "a"]),
    # CR does not end a line: one ServerName with three arguments, which Apache refuses.
    (b"ServerName a\rServerAdmin b\r", False, ["ServerName", "a", "ServerAdmin", "b"]),
])
def test_server_config_reads_nul_and_cr_as_htaccess_does(apache_binary, tmp_path: Path,
                                                         text: bytes, ok: bool,
                                                         words: list[str]) -> None:
    site = tmp_path / "site.conf"
    site.write_bytes(text)
    result = ApacheServer(None, server_config=site, modules=None).config_test()
    assert result.ok is ok, result.message[-300:]
    directives = list(load_config(site).files[str(site)].directives())
    assert [[d.name, *d.args] for d in directives] == [words]
