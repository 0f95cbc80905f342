"""confmig.fs: atomic writes, backups, and never overwriting without --force."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import pytest

from confmig import fs
from confmig.fs import WriteRefused, atomic_write, backup_path, rewrite_in_place


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_atomic_write_creates_a_new_file(tmp_path: Path) -> None:
    target = tmp_path / "out.conf"
    atomic_write(target, "Header set X 1\n")
    assert target.read_text() == "Header set X 1\n"
    assert leftovers(tmp_path) == []


def test_atomic_write_refuses_an_existing_file_without_force(tmp_path: Path) -> None:
    target = tmp_path / "out.conf"
    target.write_text("keep me\n")
    with pytest.raises(WriteRefused, match=r"already exists.*--force"):
        atomic_write(target, "new\n")
    assert target.read_text() == "keep me\n"
    atomic_write(target, "new\n", force=True)
    assert target.read_text() == "new\n"


def test_atomic_write_keeps_the_mode_and_follows_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.conf"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.conf"
    link.symlink_to(real)
    atomic_write(link, "new\n", force=True)
    assert link.is_symlink()
    assert real.read_text() == "new\n"
    assert real.stat().st_mode & 0o777 == 0o640


def test_rewrite_in_place_keeps_a_backup_of_each_changed_file(tmp_path: Path) -> None:
    a, b, same = tmp_path / "a.conf", tmp_path / "b.conf", tmp_path / "same.conf"
    a.write_text("a\n")
    b.write_text("b\n")
    same.write_text("same\n")
    report = rewrite_in_place({a: "A\n", b: "B\n", same: "same\n"})
    assert (a.read_text(), b.read_text(), same.read_text()) == ("A\n", "B\n", "same\n")
    assert (tmp_path / "a.conf.~1~").read_text() == "a\n"
    assert (tmp_path / "b.conf.~1~").read_text() == "b\n"
    assert backups(tmp_path, "same.conf") == []  # unchanged: neither written nor backed up
    assert sorted(report.written) == [a, b]
    assert sorted(report.backups) == [tmp_path / "a.conf.~1~", tmp_path / "b.conf.~1~"]


def backups(directory: Path, name: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir()
                  if p.name.startswith(name + ".") and p.name != name)


def test_a_backup_is_never_overwritten_each_rewrite_gets_the_next_number(
        tmp_path: Path) -> None:
    """As ``cp --backup=numbered``: NAME.~N~ with N one more than the highest there; no
    --force is ever needed, and an older backup (ours or not) is never touched."""
    a = tmp_path / "a.conf"
    a.write_text("one\n")
    (tmp_path / "a.conf.~3~").write_text("somebody's backup\n")
    first = rewrite_in_place({a: "two\n"})
    second = rewrite_in_place({a: "three\n"})
    assert first.backups == [tmp_path / "a.conf.~4~"]
    assert second.backups == [tmp_path / "a.conf.~5~"]
    assert (tmp_path / "a.conf.~3~").read_text() == "somebody's backup\n"
    assert (tmp_path / "a.conf.~4~").read_text() == "one\n"
    assert (tmp_path / "a.conf.~5~").read_text() == "two\n"
    assert a.read_text() == "three\n"
    assert backup_path(a) == tmp_path / "a.conf.~6~"  # the name the next one would get
    assert leftovers(tmp_path) == []


def test_a_backup_keeps_the_mode_of_the_original(tmp_path: Path) -> None:
    a = tmp_path / "a.conf"
    a.write_text("secret\n")
    a.chmod(0o600)
    (backup,) = rewrite_in_place({a: "new\n"}).backups
    assert backup.stat().st_mode & 0o777 == 0o600


def test_a_backup_name_taken_meanwhile_is_skipped_not_overwritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The name is claimed with a hard link (fails if it exists), so a backup appearing
    between choosing the number and creating the file is not replaced."""
    a = tmp_path / "a.conf"
    a.write_text("one\n")
    real_link = os.link

    def racing_link(src: str, dst: str) -> None:
        if str(dst).endswith(".~1~") and not Path(dst).exists():
            Path(dst).write_text("appeared meanwhile\n")
        real_link(src, dst)

    monkeypatch.setattr(fs.os, "link", racing_link)
    (backup,) = rewrite_in_place({a: "two\n"}).backups
    assert backup.name == "a.conf.~2~" and backup.read_text() == "one\n"
    assert (tmp_path / "a.conf.~1~").read_text() == "appeared meanwhile\n"


def test_an_interrupted_write_leaves_the_original_intact(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure between writing the temp file and renaming it over the target."""
    target = tmp_path / "httpd.conf"
    target.write_text("original\n")
    real_replace = os.replace
    calls: list[tuple[str, str]] = []

    def failing_replace(src: str, dst: str) -> None:
        calls.append((str(src), str(dst)))
        if str(dst) == str(target):
            assert Path(src).read_text() == "converted\n"  # the temp file was complete
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(fs.os, "replace", failing_replace)
    with pytest.raises(WriteRefused, match=r"cannot write .*httpd\.conf: No space left on device"):
        rewrite_in_place({target: "converted\n"})
    assert target.read_text() == "original\n"
    assert leftovers(tmp_path) == []
    assert any(dst == str(target) for _, dst in calls)


def test_rewrite_in_place_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(WriteRefused, match="not an existing regular file"):
        rewrite_in_place({tmp_path / "nope.conf": "x\n"})


def special_file(path: Path, kind: str) -> Path:
    """A non-regular file in a temp dir: a FIFO, a directory, or (as root) a copy of
    /dev/null's device node, so replacing it by mistake harms nothing."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "char-device":
        if os.geteuid() != 0:
            pytest.skip("creating a device node needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return path


@pytest.mark.parametrize("kind", ["fifo", "directory", "char-device"])
def test_atomic_write_never_replaces_a_non_regular_file_even_with_force(
        tmp_path: Path, kind: str) -> None:
    target = special_file(tmp_path / "out.conf", kind)
    before = os.stat(target)
    with pytest.raises(WriteRefused, match=r"out\.conf: .*not a regular file"):
        atomic_write(target, "x\n", force=True)
    after = os.stat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    # a symlink to it is followed, and refused the same way
    link = tmp_path / "link.conf"
    link.symlink_to(target)
    with pytest.raises(WriteRefused, match="not a regular file"):
        atomic_write(link, "x\n", force=True)
    assert link.is_symlink() and os.stat(target).st_ino == before.st_ino


def test_rewrite_in_place_refuses_a_fifo(tmp_path: Path) -> None:
    fifo = special_file(tmp_path / "a.conf", "fifo")
    with pytest.raises(WriteRefused, match="not an existing regular file"):
        rewrite_in_place({fifo: "x\n"})


def test_atomic_write_never_writes_over_an_input_even_with_force(tmp_path: Path) -> None:
    config = tmp_path / "httpd.conf"
    config.write_text("original\n")
    alias = tmp_path / "alias.conf"
    alias.symlink_to(config)
    hard = tmp_path / "hard.conf"
    os.link(config, hard)
    for target in (config, alias, hard, tmp_path / "." / "httpd.conf"):
        with pytest.raises(WriteRefused, match=r"read by this command"):
            atomic_write(target, "converted\n", force=True, inputs=[config])
    assert config.read_text() == "original\n"
    atomic_write(tmp_path / "new.conf", "converted\n", inputs=[config])  # elsewhere: fine


@pytest.mark.parametrize("errno_value", [errno.EROFS, errno.EACCES])
def test_a_write_failure_is_one_line_naming_the_path_and_the_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, errno_value: int) -> None:
    def refused(*_args: object, **_kwargs: object) -> tuple[int, str]:
        raise OSError(errno_value, os.strerror(errno_value))

    monkeypatch.setattr(tempfile, "mkstemp", refused)  # (confmig.fs imports it when it writes)
    target = tmp_path / "out.conf"
    with pytest.raises(WriteRefused) as caught:
        atomic_write(target, "x\n")
    message = str(caught.value)
    assert message == f"cannot write {target}: {os.strerror(errno_value)}"
    assert "Errno" not in message and "\n" not in message


def test_check_output_says_what_is_wrong_before_any_work(tmp_path: Path) -> None:
    from confmig.fs import check_output

    (tmp_path / "file").write_text("x\n")
    with pytest.raises(WriteRefused,
                       match=r"missing/out\.json: directory .*missing does not exist"):
        check_output(tmp_path / "missing" / "out.json", force=True)
    with pytest.raises(WriteRefused, match=r"file/out\.json: .*file is not a directory"):
        check_output(tmp_path / "file" / "out.json", force=True)
    with pytest.raises(WriteRefused, match="is a directory"):
        check_output(tmp_path, force=True)
    assert check_output(tmp_path / "new.json", force=False) == tmp_path / "new.json"
