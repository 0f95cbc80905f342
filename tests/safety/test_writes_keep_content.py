"""Promise: no write ever loses the previous content of a file.

Random sequences of the writing commands (``convert -o`` with and without ``--force``,
``--write`` repeated, outputs aimed at the inputs themselves, at a device, at a directory) run
against a small server config and its tree. After every step, every content any file ever had
is still on disk — as the file itself or as one of its backups — and no input file has been
replaced except by ``--write`` with its backup beside it.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app

CONFIG = """\
ServerRoot {root}
Listen 127.0.0.1:8099
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
# caf\xe9: a Latin-1 comment stays byte for byte
DocumentRoot {root}/site
<Directory {root}/site>
    AllowOverride All
</Directory>
"""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def every_content(root: Path) -> set[str]:
    return {digest(p.read_bytes()) for p in root.rglob("*") if p.is_file()}


def make_site(root: Path) -> Path:
    site = root / "site"
    (site / "blog").mkdir(parents=True)
    (site / "index.html").write_text("hi\n")
    (site / ".htaccess").write_bytes(b"RewriteEngine On\nRewriteRule ^old$ index.html [L]\n"
                                     b"# r\xe9sum\xe9\n")
    (site / "blog" / ".htaccess").write_text("Require all denied\n")
    config = root / "httpd.conf"
    config.write_bytes(CONFIG.format(root=root).encode("latin-1"))
    return config


def steps(root: Path, config: Path) -> list[list[str]]:
    site = root / "site"
    out = root / "out.conf"
    return [
        ["convert", "--to", "httpd", str(site), "-o", str(out)],
        ["convert", "--to", "httpd", str(site), "-o", str(out), "--force"],
        ["convert", "--to", "httpd", str(site), "-o", str(site / ".htaccess"), "--force"],
        ["convert", "--to", "httpd", "--config", str(config), "-o", str(config), "--force"],
        ["convert", "--to", "httpd", "--config", str(config), "--write"],
        ["convert", "--to", "httpd", "--config", str(config), "--write", "--force"],
        ["convert", "--to", "httpd", str(site), "-o", str(root), "--force"],
        ["convert", "--to", "httpd", str(site), "-o", str(site / "blog" / ".htaccess")],
    ]


@pytest.mark.parametrize("seed", range(8))
def test_no_write_loses_a_previous_content(seed: int, tmp_path: Path) -> None:
    config = make_site(tmp_path)
    seen = every_content(tmp_path)
    inputs = {p: p.read_bytes() for p in (tmp_path / "site").rglob(".htaccess")}
    rng = random.Random(seed)
    sequence = rng.choices(steps(tmp_path, config), k=6)
    for number, args in enumerate(sequence):
        result = CliRunner().invoke(app, args)
        where = f"seed {seed}, step {number}: {' '.join(args)}"
        assert result.exit_code in (0, 1, 2), f"{where}\n{result.output}"
        assert "Traceback" not in result.output, where
        now = every_content(tmp_path)
        assert seen <= now, f"{where}: a previous content is gone"
        for path, data in inputs.items():
            assert path.read_bytes() == data, f"{where}: input {path} was replaced"
        seen |= now


def test_a_device_is_never_replaced(tmp_path: Path) -> None:
    config = make_site(tmp_path)
    device = Path("/dev/null")
    result = CliRunner().invoke(app, ["convert", "--to", "httpd", str(config.parent / "site"),
                                      "-o", str(device), "--force"])
    assert result.exit_code in (0, 2), result.output
    assert device.is_char_device()
