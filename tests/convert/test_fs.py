"""confmig.fs: atomic writes, backups, and never overwriting without --force."""

from __future__ import annotations

import os
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
    assert backup_path(a).read_text() == "a\n"
    assert backup_path(b).read_text() == "b\n"
    assert not backup_path(same).exists()  # unchanged: neither written nor backed up
    assert sorted(report.written) == [a, b]


def test_rewrite_in_place_refuses_an_existing_backup_and_changes_nothing(
        tmp_path: Path) -> None:
    a, b = tmp_path / "a.conf", tmp_path / "b.conf"
    a.write_text("a\n")
    b.write_text("b\n")
    backup_path(b).write_text("an older backup\n")
    with pytest.raises(WriteRefused, match=r"b\.conf\.bak already exists.*--force"):
        rewrite_in_place({a: "A\n", b: "B\n"})
    # checked before the first write: a is untouched and has no backup either
    assert a.read_text() == "a\n" and not backup_path(a).exists()
    assert backup_path(b).read_text() == "an older backup\n"
    rewrite_in_place({a: "A\n", b: "B\n"}, force=True)
    assert backup_path(b).read_text() == "b\n"


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
    with pytest.raises(OSError, match="No space left"):
        rewrite_in_place({target: "converted\n"})
    assert target.read_text() == "original\n"
    assert leftovers(tmp_path) == []
    assert any(dst == str(target) for _, dst in calls)


def test_rewrite_in_place_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(WriteRefused, match="not an existing regular file"):
        rewrite_in_place({tmp_path / "nope.conf": "x\n"})
