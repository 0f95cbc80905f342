"""``--urls FILE``: the user's own URL sample, read strictly and bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.bench.options import BenchOptions, BenchUsageError
from confmig.bench.tree import SiteFiles
from confmig.bench.urls import read_url_file, select_urls


def test_paths_in_order_without_blanks_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "urls.txt"
    path.write_text("# my sample\n/index.php\n\n  /blog/?p=1  \n/a/b.css\n# end\n")
    assert read_url_file(path) == ["/index.php", "/blog/?p=1", "/a/b.css"]
    site = SiteFiles(tmp_path, {0: ["/x"]}, ())
    assert select_urls(site, str(path)) == ["/index.php", "/blog/?p=1", "/a/b.css"]
    assert read_url_file(path, limit=2) == ["/index.php", "/blog/?p=1"]


@pytest.mark.parametrize(("text", "line"), [
    ("/ok\nhttp://example.test/\n", 2),     # a URL, not a path
    ("/ok\n/two words\n", 2),               # a space inside
    ("/a\x01b\n", 1),                       # a control character
    ("/" + "a" * 2001 + "\n", 1),           # too long
])
def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "urls.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=rf"^{path}:{line}: not a URL path"):
        read_url_file(path)


def test_empty_missing_and_binary_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    with pytest.raises(ValueError, match="no URL path"):
        read_url_file(empty)
    with pytest.raises(ValueError, match="No such file"):
        read_url_file(tmp_path / "missing.txt")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"/a\n\xff\xfe\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_url_file(binary)


def test_options_check_the_file_before_the_run(tmp_path: Path) -> None:
    good = tmp_path / "urls.txt"
    good.write_text("/a\n")
    assert BenchOptions(urls=str(good)).validate().urls == str(good)
    with pytest.raises(BenchUsageError, match="--urls must be deepest, top, random or a file"):
        BenchOptions(urls=str(tmp_path / "missing.txt")).validate()
