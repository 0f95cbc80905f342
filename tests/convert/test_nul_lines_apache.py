"""A line with a NUL byte: Apache reads it up to the NUL, drops the rest of what that read
returned, and reads what lies past its 206-byte read buffer as the next line
(confmig/syntax/reader.py; the 206 figure is checked on Apache by the ``nul-tail-fits`` /
``nul-tail-split`` cases of tests/test_syntax_reader_apache.py).  The converter writes each
line as Apache read it — never a raw NUL byte, never the dropped bytes — and the converted
site answers as the original on real Apache (issue 10)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert import Options, convert_docroot
from confmig.convert.httpd.text import as_read
from confmig.servers import find_apache, http_get
from confmig.verify import VerifyRequest, verify
from confmig.verify.session import prepare
from tests.convert.cases import case_docroot

pytestmark = pytest.mark.apache

BUFFER = 206  # what the first read of an .htaccess line returns at most


def at_boundary(head: bytes, rest: bytes) -> bytes:
    """*head* (with its NUL), padded so that *rest* starts exactly past the first read."""
    assert len(head) < BUFFER
    return head + b"j" * (BUFFER - len(head)) + rest


#: directory -> (.htaccess, {header: value Apache sends for its index.html})
CASES: dict[str, tuple[bytes, dict[str, str]]] = {
    # the rest of the physical line past the buffer is a directive of its own
    "split": (at_boundary(b"Header set X-A a\0", b"Header set X-B b\n"), {"X-A": "a", "X-B": "b"}),
    # a comment line cut by a NUL; its remainder past the buffer is read
    "comment-split": (at_boundary(b"# note\0", b"Header set X-C c\n"), {"X-C": "c"}),
    # cut right after a backslash: no continuation (the newline was after the NUL)
    "backslash": (b"Header set X-D d\\\0junk\nHeader set X-E e\n", {"X-E": "e"}),
    "comment-backslash": (b"# note \\\0junk\nHeader set X-F f\n", {"X-F": "f"}),
    # a section's opening line
    "section": (b"<IfModule mod_headers.c>\0junk\nHeader set X-G g\n</IfModule>\n",
                {"X-G": "g"}),
    # dropped bytes that would switch listings on, if they were read
    "dropped": (b"Options -Indexes\0 +Indexes\nHeader set X-H h\n", {"X-H": "h"}),
}


def test_as_read_never_keeps_a_nul() -> None:
    assert as_read("Header set X-A a\0jjj") == "Header set X-A a\n"
    assert as_read("# c \\\0junk\n") == "# c \\ \n"  # no continuation where Apache read none
    assert as_read("Options \\\n-Indexes\0junk\n") == "Options \\\n-Indexes\n"
    assert as_read("Header set X-T ok\n") == "Header set X-T ok\n"


@pytest.fixture(scope="module")
def docroot() -> Iterator[Path]:
    yield from case_docroot(CASES, "confmig-nul-")


def test_the_converted_text_holds_no_nul(docroot: Path) -> None:
    result = convert_docroot(docroot, None, Options())
    assert "\0" not in result.text
    assert "jjjj" not in result.text and "junk" not in result.text
    assert "Header set X-B b" in result.text and "Header set X-C c" in result.text


def test_converted_site_answers_as_apache(docroot: Path, apache_binary: object) -> None:
    setup = prepare(VerifyRequest(docroot=docroot), find_apache())
    with setup.original as original, setup.converted as converted:
        for name, (_, headers) in CASES.items():
            for path in (f"/{name}/index.html", f"/{name}/sub/"):
                a = http_get(original.base_url, path)
                b = http_get(converted.base_url, path)
                assert (a.status, b.status) == ((200, 200) if path.endswith(".html")
                                                else (a.status, a.status)), (name, path)
                if path.endswith(".html"):
                    got = {h: b.headers.get(h) for h in headers}
                    assert {h: a.headers.get(h) for h in headers} == headers, name
                    assert got == headers, name
    assert http_get  # (servers stopped)


def test_verify_finds_no_difference(docroot: Path, apache_binary: object) -> None:
    report = verify(VerifyRequest(docroot=docroot, max_requests=400))
    assert report.compared > 0 and report.differing == [], report.summary()
    assert report.exit_code == 0


def test_config_mode_writes_no_nul(docroot: Path, tmp_path: Path, apache_binary: object) -> None:
    """A whole configuration (-o, Includes inlined) with a NUL line of its own: written as
    Apache read it, and verify (which runs that output as the original) finds no difference."""
    from confmig.convert import convert_config

    extra = tmp_path / "extra.conf"
    extra.write_bytes(at_boundary(b"ServerSignature Off\0", b"ServerTokens Prod\n"))
    config = tmp_path / "site.conf"
    config.write_text(f"Include {extra}\nDocumentRoot {docroot}\n"
                      f"<Directory {docroot}>\n    AllowOverride All\n</Directory>\n")
    result = convert_config(config, None, Options())
    assert "\0" not in result.text and "jjjj" not in result.text
    assert "ServerTokens Prod" in result.text
    report = verify(VerifyRequest(config=config, max_requests=300))
    assert report.compared > 0 and report.exit_code == 0, report.summary()
