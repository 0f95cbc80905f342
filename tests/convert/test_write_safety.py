"""convert writes nothing that loses a file: never over its own input, never over a device
or anything else that is not a regular file, and a failed write is one line (issue 10)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from tests.convert.test_config import make_config


def convert(*args: str):
    return CliRunner().invoke(app, ["convert", "--to", "httpd", *args])


def one_line_error(result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output and "Errno" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def test_o_onto_the_htaccess_it_reads_is_refused_even_with_force(tmp_path: Path) -> None:
    _config, root = make_config(tmp_path)
    before = snapshot(tmp_path)
    for target in (root / ".htaccess", root / "sub" / ".htaccess"):
        result = convert(str(root), "-o", str(target), "--force")
        one_line_error(result, str(target), "read by this command")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("mode", ["write-config", "docroot-with-config"])
def test_o_onto_the_config_or_an_included_file_is_refused_even_with_force(
        tmp_path: Path, mode: str) -> None:
    config, root = make_config(tmp_path, vhost_file=True)
    included = tmp_path / "sites" / "site.conf"
    link = tmp_path / "link.conf"
    link.symlink_to(config)
    hard = tmp_path / "hard.conf"
    os.link(included, hard)
    before = snapshot(tmp_path)
    head = ["--config", str(config)] if mode == "write-config" else [
        str(root), "--config", str(config)]
    for target in (config, included, link, hard):
        result = convert(*head, "-o", str(target), "--force")
        one_line_error(result, str(target), "read by this command")
    assert snapshot(tmp_path) == before
    assert link.is_symlink()


@pytest.mark.parametrize("kind", ["fifo", "directory", "char-device"])
def test_o_never_replaces_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """``-o /dev/null --force`` as root replaced the device node with a regular file: here on
    a device node of our own (made like /dev/null), a FIFO and a directory, directly and
    through a symlink."""
    from tests.convert.test_fs import special_file

    config, _root = make_config(tmp_path)
    target = special_file(tmp_path / "out", kind)
    link = tmp_path / "out-link"
    link.symlink_to(target)
    before = os.lstat(target)
    for path in (target, link):
        result = convert("--config", str(config), "-o", str(path), "--force")
        one_line_error(result, str(path), "not a regular file")
    after = os.lstat(target)
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (before.st_ino,
                                                          stat.S_IFMT(before.st_mode))


def test_o_to_a_symlink_to_a_regular_file_is_followed(tmp_path: Path) -> None:
    config, _root = make_config(tmp_path)
    real = tmp_path / "out.conf"
    real.write_text("old\n")
    link = tmp_path / "out-link.conf"
    link.symlink_to(real)
    result = convert("--config", str(config), "-o", str(link), "--force")
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and "AllowOverride None" in real.read_text()


@pytest.mark.parametrize("errno_value", [errno.EROFS, errno.EACCES])
def test_a_read_only_destination_is_one_line_naming_the_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, errno_value: int) -> None:
    """As root a chmod'ed directory is writable, so the refusal comes from the kernel call
    confmig makes first (the temp file next to the target), as on a read-only mount."""
    config, _root = make_config(tmp_path)
    before = snapshot(tmp_path)

    def refused(*_args: object, **_kwargs: object) -> tuple[int, str]:
        raise OSError(errno_value, os.strerror(errno_value))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    out = tmp_path / "out.conf"
    one_line_error(convert("--config", str(config), "-o", str(out)),
                   f"cannot write {out}: {os.strerror(errno_value)}")
    one_line_error(convert("--config", str(config), "--write"),
                   str(config), os.strerror(errno_value), "nothing was rewritten")
    assert snapshot(tmp_path) == before


def test_o_into_a_missing_directory_is_refused_before_converting(tmp_path: Path) -> None:
    config, _root = make_config(tmp_path)
    out = tmp_path / "nowhere" / "out.conf"
    one_line_error(convert("--config", str(config), "-o", str(out)), str(out),
                   "does not exist")



def test_a_converter_that_lists_no_inputs_is_still_kept_off_the_htaccess(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The write path does not trust every converter to list what it read: DOCROOT's
    .htaccess files and --config are always inputs."""
    import confmig.convert as convert_module
    from confmig.convert import ConvertRequest, WriteRefused, run
    from confmig.convert.result import ConversionResult

    _config, root = make_config(tmp_path)
    monkeypatch.setattr(convert_module, "convert_docroot",
                        lambda *_a, **_k: ConversionResult("httpd", str(root), "x\n"))
    before = snapshot(tmp_path)
    for target in (root / ".htaccess", root / "sub" / ".htaccess"):
        with pytest.raises(WriteRefused, match="read by this command"):
            run(ConvertRequest("httpd", root, output=target, force=True))
    assert snapshot(tmp_path) == before
