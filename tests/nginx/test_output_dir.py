"""``convert --to nginx --config httpd.conf -o DIR [--force]``: one file per virtual host (and
one with the shared ``map`` blocks) in DIR, accepted by real nginx when included together;
every file checked before the first is written; never over an existing file without
``--force``, never over a file the command read."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.servers import make_docroot, nginx_config_test

CONFIG = """\
ServerRoot "{root}"
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so
Listen 8080
<VirtualHost *:8080>
    ServerName one.test
    ServerAlias www.one.test
    DocumentRoot "{root}/one"
</VirtualHost>
<VirtualHost *:8080>
    ServerName two/evil.test
    DocumentRoot "{root}/two"
</VirtualHost>
<Directory "{root}">
    AllowOverride All
    Require all granted
</Directory>
"""


@pytest.fixture
def tree() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-odir-", files={
        "one/.htaccess": "RewriteEngine On\nRewriteCond %{HTTPS} off\n"
                         "RewriteRule ^x$ /y [R=301,L]\nHeader set X-One 1\n",
        "one/y": "y\n",
        "two/.htaccess": "RewriteEngine On\nRewriteCond %{HTTPS} off\n"
                         "RewriteRule ^a$ /b [R=302,L]\n",
        "out/keep.txt": "not ours\n"})
    (root / "httpd.conf").write_text(CONFIG.format(root=root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


def test_one_file_per_virtual_host(tree: Path, nginx_binary: object) -> None:
    out = tree / "out"
    code, stdout, err = cli("--config", str(tree / "httpd.conf"), "-o", str(out))
    assert code == 0, err
    assert not stdout
    names = sorted(p.name for p in out.iterdir())
    assert names == ["00-maps.conf", "01-one.test.conf", "02-two_evil.test.conf", "keep.txt"]
    assert (out / "keep.txt").read_text() == "not ours\n"
    one = (out / "01-one.test.conf").read_text()
    assert "server_name one.test www.one.test;" in one and "X-One" in one
    assert "two" not in one.split("\n", 1)[1]
    for name in names[:3]:
        assert f"wrote: {out / name}" in err
    # both servers and the maps (the https map is shared) included together, as
    # `include DIR/*.conf;` in Debian's http { } does
    ok, message = nginx_config_test(http_config=f'include "{out}/*.conf";\n')
    assert ok, message


def test_refuses_to_overwrite_without_force(tree: Path) -> None:
    out = tree / "out"
    (out / "02-two_evil.test.conf").write_text("mine\n")
    code, _, err = cli("--config", str(tree / "httpd.conf"), "-o", str(out))
    assert code == 2 and "already exists (use --force" in err and err.count("\n") == 1
    # checked before anything was written: nothing else appeared
    assert sorted(p.name for p in out.iterdir()) == ["02-two_evil.test.conf", "keep.txt"]
    assert (out / "02-two_evil.test.conf").read_text() == "mine\n"
    code, _, err = cli("--config", str(tree / "httpd.conf"), "-o", str(out), "--force")
    assert code == 0, err
    # the name made safe for the file only
    assert "server_name two/evil.test;" in (out / "02-two_evil.test.conf").read_text()


def test_never_over_an_input_even_with_force(tree: Path) -> None:
    out = tree / "out"
    os.link(tree / "one" / ".htaccess", out / "01-one.test.conf")
    before = (tree / "one" / ".htaccess").read_text()
    code, _, err = cli("--config", str(tree / "httpd.conf"), "-o", str(out), "--force")
    assert code == 2 and "read by this command" in err, err
    assert (tree / "one" / ".htaccess").read_text() == before
    assert not (out / "00-maps.conf").exists()


def test_docroot_mode_into_a_directory_is_refused(tree: Path) -> None:
    code, _, err = cli(str(tree / "one"), "-o", str(tree / "out"))
    assert code == 2 and "not a regular file" in err and err.count("\n") == 1
