"""A backslash at the end of an ``.htaccess`` (issue 10, "Access widened" / "Files lost").

How Apache reads it, asked of real Apache here (the first test pins it): a backslash right
before the file's last newline joins nothing — ``Options -Indexes \\`` and a newline is
``Options -Indexes``; one before a blank line joins that empty line (and the line after it is
a line of its own); one with no newline after it stays a character of the line
(``Options -Indexes \\`` is then a 500).  A line already joined that ends in a backslash
itself continues again on the empty line (``a\\\\`` then a blank line joins the next one).

The converter moved such a last line as written into a ``<Directory>`` block, where the
``</Directory>`` after it became its continuation: ``apache2 -t`` refused the generated
configuration, and ``convert --write`` wrote it all the same (backup kept, server unusable).
Now every line copied out of an access file ends where Apache ended it
(:func:`confmig.convert.httpd.text.ended`), and ``--write`` refuses to write a configuration
``apache2 -t`` rejects.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert import ConvertRequest, Options, WriteRefused, run
from confmig.convert.httpd.text import ended, ensure_newline
from confmig.servers import ApacheServer, http_get, make_docroot
from confmig.syntax.reader import SERVER_MAX_LINE, ConfigReader
from confmig.verify import VerifyRequest, verify
from tests.convert.cases import case_docroot, convert_httpd

pytestmark = pytest.mark.apache

#: directory -> (.htaccess, Apache's answer: index.html's status and X-T header, sub/'s
#: status — a listing unless ``Options -Indexes`` holds)
CASES: dict[str, tuple[bytes, tuple[int, str | None, int]]] = {
    # the audit's file (B2): the last line continued onto the end of the file
    "audit": (b"Require all granted\nOptions -Indexes \\\n", (200, None, 403)),
    "newline-eof": (b"Header set X-T a \\\n", (200, "a", 200)),
    "crlf-eof": (b"Header set X-T a \\\r\n", (200, "a", 200)),
    "twice-eof": (b"Header set X-T a \\\n\\\n", (200, "a", 200)),
    "doubled-eof": (b"Header set X-T a\\\\\n", (200, "a\\", 200)),
    # no newline: the backslash is a word of the line
    "no-newline": (b"Header set X-T a \\", (500, None, 500)),
    "options-no-newline": (b"Options -Indexes \\", (500, None, 500)),
    # before a blank line: that line is joined, the next is a line of its own
    "blank": (b"Header set X-T a \\\n\nHeader append X-T b\n", (200, "a, b", 200)),
    "spaces-blank": (b"Header set X-T a \\\n   \nHeader append X-T b\n", (200, "a, b", 200)),
    "doubled-blank": (b"Header set X-T a\\\\\n\nHeader append X-T b\n", (500, None, 500)),
    "next": (b"Header set X-T a \\\nHeader append X-T b\n", (500, None, 500)),
    # comments and a section's closing line
    "comment-eof": (b"Header set X-T a\n#x \\\n", (200, "a", 200)),
    "comment-no-newline": (b"Header set X-T a\n#x \\", (200, "a", 200)),
    "comment-blank": (b"Header set X-T a\n#x \\\n\nHeader append X-T b\n", (200, "a, b", 200)),
    "files-eof": (b"<Files index.html>\nHeader set X-T f\n</Files> \\\n", (200, "f", 200)),
    "files-no-newline": (b"<Files index.html>\nHeader set X-T f\n</Files> \\", (200, "f", 200)),
    # the 500 line Apache refused, after a directive it would have used
    "fatal-eof": (b"Options -Indexes\nNoSuchDirective x \\\n", (500, None, 500)),
}
PATHS = ("index.html", "sub/")


def answers(base_url: str) -> dict[str, tuple[int, str | None, int]]:
    out = {}
    for name in CASES:
        page = http_get(base_url, f"/{name}/index.html")
        listing = http_get(base_url, f"/{name}/sub/")
        out[name] = (page.status, page.headers.get("X-T"), listing.status)
    return out


@pytest.fixture(scope="module")
def site() -> Iterator[Path]:
    yield from case_docroot(CASES, "confmig-eofbs-")


def site_config(root: Path) -> str:
    """Server-context text (the private server adds Listen and the modules)."""
    return (f"LoadModule headers_module modules/mod_headers.so\n"
            f"DocumentRoot {root}\n"
            f"<Directory {root}>\n"
            f"    AllowOverride All\n"
            f"    Options Indexes\n"
            f"    Require all granted\n"
            f"</Directory>\n")


convert = convert_httpd  # confmig convert --to httpd ARGS


def test_apache_reads_a_trailing_backslash_so(apache_binary, site: Path) -> None:
    with ApacheServer(site, allow_override="All", options="Indexes",
                      binary=apache_binary) as server:
        got = answers(server.base_url)
    assert got == {name: answer for name, (_, answer) in CASES.items()}


def test_write_keeps_every_answer_and_apache_loads_it(apache_binary, site: Path,
                                                      tmp_path: Path) -> None:
    """B2: ``convert --config --write`` writes a configuration ``apache2 -t`` accepts, which
    answers as the original with its ``.htaccess`` files did."""
    config = tmp_path / "httpd.conf"
    config.write_text(site_config(site))
    original = ApacheServer(site, server_config=tmp_path / "original.conf",
                            binary=apache_binary)
    (tmp_path / "original.conf").write_text(site_config(site))
    written = convert("--config", str(config), "--write")
    assert written.exit_code in (0, 1), written.output
    assert "rejects the generated" not in written.stderr, written.stderr
    assert (tmp_path / "httpd.conf.~1~").exists()
    text = config.read_text()
    assert "\\\n</Directory>" not in text and "\\\n    </Directory>" not in text
    converted = ApacheServer(site, server_config=config, binary=apache_binary)
    check = converted.config_test()
    assert check.ok, check.message
    with original, converted:
        assert answers(original.base_url) == {n: a for n, (_, a) in CASES.items()}
        assert answers(converted.base_url) == answers(original.base_url)


def test_serve_500_comments_the_refused_lines_without_swallowing(apache_binary, site: Path,
                                                                  tmp_path: Path) -> None:
    """--serve-500 writes the refused lines (``NoSuchDirective x \\``, ``Options -Indexes
    \\`` with no newline) as comments: each ends where Apache ended it."""
    config = tmp_path / "httpd.conf"
    config.write_text(site_config(site))
    written = convert("--config", str(config), "--write", "--serve-500")
    assert written.exit_code == 1, written.output  # the 500s are announced
    assert "rejects the generated" not in written.stderr, written.stderr
    text = config.read_text()
    assert "# NoSuchDirective x \\\n" in text
    check = ApacheServer(site, server_config=config, binary=apache_binary).config_test()
    assert check.ok, check.message


def test_a_configuration_apache_rejects_is_not_written(apache_binary, site: Path,
                                                       tmp_path: Path, monkeypatch) -> None:
    """With the lines copied as written (the old converter, brought back here), the blocks
    do not load: ``--write`` refuses in one line, exit 2, and writes nothing — no backup, the
    configuration as it was (the audit found it rewritten and failing ``apache2 -t``)."""
    monkeypatch.setattr("confmig.convert.httpd.text.ended", lambda text: text, raising=False)
    config = tmp_path / "httpd.conf"
    config.write_text(site_config(site))
    before = config.read_bytes()
    with pytest.raises(WriteRefused, match="not rewritten"):
        run(ConvertRequest("httpd", config=config, write=True, options=Options()))
    assert config.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["httpd.conf"]
    result = convert("--config", str(config), "--write")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "apache2 -t rejects" in lines[0], result.stderr
    assert "Traceback" not in result.output
    assert config.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["httpd.conf"]


def test_included_files_ending_in_a_backslash_are_inlined_as_apache_read_them(
        apache_binary, tmp_path: Path) -> None:
    """``-o`` inlines every Include between ``# confmig: begin/end`` comments: a file whose
    last line ends in a backslash (with a newline after it, or none) must not swallow the
    comment after it (``Header set X-I i\\`` then read ``i# confmig: end …``)."""
    site = make_docroot(files={"a/index.html": "a\n", "a/.htaccess": "Header set X-T a\n"})
    try:
        _inlined(apache_binary, site, tmp_path)
    finally:
        shutil.rmtree(site, ignore_errors=True)


def _inlined(apache_binary, site: Path, tmp_path: Path) -> None:
    (tmp_path / "inc1.conf").write_bytes(b"Header set X-I i\\")
    (tmp_path / "inc2.conf").write_bytes(b"Header append X-I j \\\n")
    config = tmp_path / "httpd.conf"
    config.write_text(site_config(site) + f"Include {tmp_path}/inc1.conf\n"
                      f"Include {tmp_path}/inc2.conf\n# the end \\")
    out = tmp_path / "out.conf"
    written = convert("--config", str(config), "-o", str(out))
    assert "rejects the generated" not in written.stderr, written.stderr
    original = ApacheServer(site, server_config=config, binary=apache_binary)
    converted = ApacheServer(site, server_config=out, binary=apache_binary)
    with original, converted:
        for server in (original, converted):
            answer = http_get(server.base_url, "/a/index.html")
            assert (answer.headers.get("X-I"), answer.headers.get("X-T")) == ("i\\, j", "a")


@pytest.mark.parametrize("target", ["httpd", "nginx", "flask"])
def test_verify_finds_no_difference(site: Path, target: str, apache_binary,
                                    request: pytest.FixtureRequest) -> None:
    """Docroot mode, and the other targets, which write no access-file line as it was (their
    comments are one line each, with no continuation in nginx or Python)."""
    if target == "nginx":
        request.getfixturevalue("nginx_binary")
    report = verify(VerifyRequest(target=target, docroot=site, max_requests=400))
    assert report.compared > 0 and report.differing == [], report.summary()


def logical_lines(data: bytes) -> list[bytes]:
    reader = ConfigReader(data, SERVER_MAX_LINE)
    out = []
    while (line := reader.next_line()) is not None:
        if line.text:
            out.append(line.text)
    return out


def test_ended_text_reads_the_same_before_another_line() -> None:
    """Every text of these characters up to 6 long, followed by a newline and another line:
    Apache's reader (confmig/syntax/reader.py, checked on Apache) reads the text's lines as at
    the end of a file, then that line.  Copied as written, 5,366 of the 19,530 did not."""
    alphabet = ("\\", "\n", "\r", "a", " ")
    texts = ["".join(chars) for size in range(1, 7)
             for chars in itertools.product(alphabet, repeat=size)]
    wrong = [text for text in texts
             if [*logical_lines(text.encode()), b"next"]
             != logical_lines((ensure_newline(ended(text)) + "next\n").encode())]
    assert wrong == []
    assert ended("Options -Indexes \\\n") == "Options -Indexes \\\n\n"
    assert ended("Options -Indexes \\") == "Options -Indexes \\ "
    assert ended("Header set X a\\\\\n") == "Header set X a\\\\\n \n"
    assert ended("Header set X a \\\n\n") == "Header set X a \\\n\n"
    assert ended("RewriteRule ^a\\.b$ - [F]\n") == "RewriteRule ^a\\.b$ - [F]\n"
