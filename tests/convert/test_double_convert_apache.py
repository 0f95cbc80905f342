"""``convert --to httpd --config httpd.conf --write`` run twice (issue 10, "Files lost").

The second run used to refuse and suggest ``--force``, which then overwrote ``httpd.conf.bak``
(the only copy of the original) with the converted file and appended every block again.
Now: the first run keeps ``httpd.conf.~1~``; a converted configuration is recognised (the
converter's own marker before an ``AllowOverride None`` for the tree, and no ``.htaccess`` left
that Apache would read), so a second run is one line, exit 0, and touches nothing; a later
real change gets ``httpd.conf.~2~``.  Real Apache checks the written configuration.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.servers import ApacheServer, http_get, make_docroot
from tests.convert.cases import convert_httpd

pytestmark = pytest.mark.apache


@pytest.fixture
def site() -> Iterator[Path]:
    root = make_docroot(files={
        "index.html": "top\n", ".htaccess": "Header set X-Root ht\n",
        "sub/page.html": "sub\n", "sub/.htaccess": "Header set X-Sub ht\n",
    })
    yield root
    shutil.rmtree(root, ignore_errors=True)


def site_config(root: Path) -> str:
    """Server-context text (no Listen: the private server listens).  The LoadModule tells
    the converter mod_headers is loaded; Apache, which has loaded it already, skips it."""
    return (f"# the site\n"
            f"LoadModule headers_module modules/mod_headers.so\n"
            f"DocumentRoot {root}\n"
            f"<Directory {root}>\n"
            f"    AllowOverride All\n"
            f"    Require all granted\n"
            f"</Directory>\n")


convert = convert_httpd  # confmig convert --to httpd ARGS


def state(*directories: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mtime: 'touched nothing' means this is unchanged."""
    out: dict[str, tuple[bytes, int]] = {}
    for directory in directories:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                out[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def test_converting_twice_changes_nothing_and_never_loses_the_original(
        apache_binary, site: Path, tmp_path: Path) -> None:
    config = tmp_path / "httpd.conf"
    original = site_config(site)
    config.write_text(original)

    first = convert("--config", str(config), "--write")
    assert first.exit_code == 0, first.output
    converted = config.read_text()
    assert converted != original
    assert (tmp_path / "httpd.conf.~1~").read_text() == original
    assert f"backup: {tmp_path / 'httpd.conf.~1~'}" in first.stderr

    # Real Apache accepts what the first run wrote, and serves the folded headers with no
    # .htaccess left to read.
    server = ApacheServer(site, server_config=config, binary=apache_binary)
    check = server.config_test()
    assert check.ok, check.message
    for name in (site / ".htaccess", site / "sub" / ".htaccess"):
        name.rename(name.with_name("htaccess.moved"))
    try:
        with server:
            assert http_get(server.base_url, "/index.html").headers.get("X-Root") == "ht"
            assert http_get(server.base_url, "/sub/page.html").headers.get("X-Sub") == "ht"
    finally:
        for name in (site / "htaccess.moved", site / "sub" / "htaccess.moved"):
            name.rename(name.with_name(".htaccess"))

    before = state(tmp_path, site)
    for extra in ([], ["--force"]):
        again = convert("--config", str(config), "--write", *extra)
        assert again.exit_code == 0, again.output
        lines = again.stderr.strip().splitlines()
        assert len(lines) == 1 and "already converted" in lines[0] and "nothing to do" in \
            lines[0], again.stderr
        assert again.stdout == ""
        assert state(tmp_path, site) == before
    # -o and stdout modes say the same and write nothing either
    out = tmp_path / "out.conf"
    again = convert("--config", str(config), "-o", str(out))
    assert again.exit_code == 0 and "nothing to do" in again.stderr and not out.exists()
    assert state(tmp_path, site) == before
    assert config.read_text().count(f'<Directory "{site}/sub">') == 1
    check = server.config_test()
    assert check.ok, check.message


def test_a_later_real_change_gets_the_next_backup_number(apache_binary, site: Path,
                                                         tmp_path: Path) -> None:
    """A second tree added after the first conversion: only it is converted; the first
    tree's blocks are not repeated, and ~1~ (the original) is still there."""
    config = tmp_path / "httpd.conf"
    original = site_config(site)
    config.write_text(original)
    assert convert("--config", str(config), "--write").exit_code == 0
    first = config.read_text()
    other = make_docroot(files={".htaccess": "Header set X-Other ht\n", "o.html": "o\n"})
    try:
        config.write_text(first + (
            f"<VirtualHost 127.0.0.1:80>\n"
            f"    ServerName other.test\n"
            f"    DocumentRoot {other}\n"
            f"    <Directory {other}>\n"
            f"        AllowOverride All\n"
            f"        Require all granted\n"
            f"    </Directory>\n"
            f"</VirtualHost>\n"))
        edited = config.read_text()
        second = convert("--config", str(config), "--write")
        assert second.exit_code == 0, second.output
        assert (tmp_path / "httpd.conf.~1~").read_text() == original
        assert (tmp_path / "httpd.conf.~2~").read_text() == edited
        text = config.read_text()
        assert text.count(f'<Directory "{site}/sub">') == 1
        assert f'<Directory "{other}">' in text and "Header set X-Other ht" in text
        check = ApacheServer(site, server_config=config, binary=apache_binary).config_test()
        assert check.ok, check.message
        assert "already converted" in second.stderr  # the first tree is named as such
    finally:
        shutil.rmtree(other, ignore_errors=True)


def test_a_converted_tree_whose_htaccess_apache_reads_again_is_refused(
        site: Path, tmp_path: Path) -> None:
    """Someone turned AllowOverride back on below a converted tree: folding again would
    repeat every block, so confmig stops and says why (exit 2), changing nothing."""
    config = tmp_path / "httpd.conf"
    config.write_text(site_config(site))
    assert convert("--config", str(config), "--write").exit_code == 0
    config.write_text(config.read_text() + (
        f"<Directory {site}/sub>\n    AllowOverride FileInfo\n</Directory>\n"))
    before = state(tmp_path, site)
    result = convert("--config", str(config), "--write")
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "converted by confmig before" in line and f"{site}/sub/.htaccess" in line
    assert state(tmp_path, site) == before
    assert not os.path.exists(tmp_path / "httpd.conf.~2~")
