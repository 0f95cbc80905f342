"""PERF001 reads a relative DocumentRoot from ServerRoot (``ap_server_root_relative``), as
the layout that decides AllowOverride does — not as a path relative to ``/``."""

from __future__ import annotations

from pathlib import Path

from confmig.lint.engine import lint_paths
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write

DEEP = "/".join(f"d{i}" for i in range(1, 11))   # 10 levels below the docroot


def test_relative_document_root_is_under_server_root() -> None:
    text = ("ServerRoot /srv/www\nDocumentRoot site/public\n"
            "<Directory />\n AllowOverride All\n</Directory>\n")
    [f] = finds("PERF001", text, kind="server")
    # /srv/www/site/public: four directories above it (not "/" and "/site")
    assert f.line == 4
    assert "above DocumentRoot /srv/www/site/public" in f.message
    assert "4 directories above it (/, /srv, /srv/www, /srv/www/site)" in f.message


def test_overrides_granted_under_server_root_only() -> None:
    text = ("ServerRoot /srv/www\nDocumentRoot site/public\n"
            "<Directory />\n AllowOverride None\n</Directory>\n"
            "<Directory /srv>\n AllowOverride FileInfo\n</Directory>\n")
    [f] = finds("PERF001", text, kind="server")
    assert f.line == 7 and "3 directories above it (/srv, /srv/www, /srv/www/site)" in f.message
    # /site is not above /srv/www/site/public
    elsewhere = text.replace("<Directory /srv>", "<Directory /site>")
    assert not finds("PERF001", elsewhere, kind="server")


def test_deep_docroot_with_relative_document_root(tmp_path: Path) -> None:
    write(tmp_path, {"site/.htaccess": "Options -Indexes\n", f"site/{DEEP}/f.txt": "F\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"ServerRoot {tmp_path}\nDocumentRoot site\n"
                    "<Directory />\n AllowOverride None\n</Directory>\n"
                    f"<Directory {tmp_path}>\n AllowOverride All\n</Directory>\n")
    result = lint_paths([conf, tmp_path / "site"], config=conf, use_cache=False)
    perf = sorted((f for f in result.findings if f.code == "PERF001"),
                  key=lambda f: f.message)
    assert [f.file for f in perf] == [str(conf), str(conf)]
    above, tree = perf
    # one directory above <ServerRoot>/site allows overrides: the config's <Directory>
    assert f"above DocumentRoot {tmp_path}/site:" in above.message
    assert f"1 directory above it ({tmp_path})" in above.message
    # from ServerRoot down to d10: 12 directories and the file itself
    assert f"overrides are allowed from {tmp_path} down" in tree.message
    assert "13 .htaccess paths (1 exists)" in tree.message
