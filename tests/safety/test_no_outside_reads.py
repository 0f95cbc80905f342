"""Promise: no file outside the root given is ever read into output or written.

A secret file lives next to the site, and the site links to it in every way a tree can: a
symlinked ``.htaccess``, a symlinked directory, a link to ``/``. Every command that reads a tree
runs on it; none prints the secret, none leaves the root on its own, and nothing outside the
root changes.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app

SECRET = "TOPSECRET-c0nfm1g"


def outside_snapshot(directory: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file() and not p.is_symlink()}


@pytest.fixture
def linked_site(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.conf").write_text(
        f"Require all denied\nHeader set X-S {SECRET}\nBogus {SECRET}\n")
    (outside / "sub").mkdir()
    (outside / "sub" / ".htaccess").write_text(f"Header set X-S {SECRET}\nOptions +Indexes\n")
    site = tmp_path / "site"
    (site / "up").mkdir(parents=True)
    (site / "index.html").write_text("hi\n")
    (site / ".htaccess").write_text("RewriteEngine On\nRewriteRule ^x$ index.html [L]\n")
    os.symlink(outside / "secret.conf", site / "up" / ".htaccess")
    os.symlink(outside / "sub", site / "linked")
    os.symlink("/", site / "root")
    return site, outside


COMMANDS = (
    ["parse"], ["parse", "--format", "json"], ["lint"], ["lint", "--format", "json"],
    ["lint", "--format", "sarif"], ["convert", "--to", "httpd"],
)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_commands_never_print_a_file_outside_the_root(command: list[str],
                                                      linked_site: tuple[Path, Path]) -> None:
    site, outside = linked_site
    before = outside_snapshot(outside)
    result = CliRunner().invoke(app, [*command, str(site)])
    assert not isinstance(result.exception, RecursionError | OSError | KeyError), result.output
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    assert SECRET not in result.stdout + result.stderr
    assert outside_snapshot(outside) == before


@pytest.mark.parametrize("url", ["/up/", "/linked/", "/root/etc/passwd", "/x"])
def test_explain_never_reads_a_file_outside_the_root(url: str,
                                                     linked_site: tuple[Path, Path]) -> None:
    site, _outside = linked_site
    result = CliRunner().invoke(app, ["explain", url, "--root", str(site),
                                      "--format", "json"])
    assert result.exit_code in (0, 1, 2), result.output
    assert SECRET not in result.stdout + result.stderr
