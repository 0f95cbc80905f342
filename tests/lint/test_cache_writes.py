"""What the lint cache writes (the one thing ``confmig lint`` writes): atomically, into its
own directory, never through a symlink and never over anything but a regular file; the
``.gitignore`` only into a directory the cache made (``cache-dir = "/etc"`` once created
``/etc/.gitignore``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / ".confmig.toml").write_text("")  # the project root: the cache goes here
    root = tmp_path / "site"
    root.mkdir()
    (root / ".htaccess").write_text("RewriteEngin On\n")
    return root


def _cache_file(site: Path) -> Path:
    lint_paths([site])
    (found,) = (site.parent / ".confmig_cache").glob("*.json")
    return found


def _lint_in_a_process(site: Path) -> subprocess.CompletedProcess[str]:
    """(a FIFO read would block: a process that can be given up on)"""
    return subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                           "from confmig.lint.engine import lint_paths; "
                           "r = lint_paths([Path(sys.argv[1])]); print(len(r.findings))",
                           str(site)], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          check=False)


def test_a_symlinked_cache_file_is_neither_followed_nor_replaced(site: Path,
                                                                 tmp_path: Path) -> None:
    cache = _cache_file(site)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    cache.unlink()
    cache.symlink_to(victim)
    (site / ".htaccess").write_text("RewriteEngin Off\n")  # a change: the cache would save
    assert len(lint_paths([site]).findings) == 1
    assert cache.is_symlink() and victim.read_text() == "keep me"


def test_a_cache_file_that_is_a_fifo_is_left_alone(site: Path) -> None:
    cache = _cache_file(site)
    cache.unlink()
    os.mkfifo(cache)
    run = _lint_in_a_process(site)
    assert run.returncode == 0 and run.stdout == "1\n", run.stderr
    assert cache.is_fifo()


def test_a_symlinked_cache_directory_is_not_written_through(site: Path,
                                                            tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (site.parent / ".confmig_cache").symlink_to(elsewhere)
    assert len(lint_paths([site]).findings) == 1
    assert list(elsewhere.iterdir()) == []


def test_the_gitignore_only_in_a_directory_the_cache_made(site: Path, tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    settings = Settings(cache_dir=existing, root=site.parent)
    lint_paths([site], settings=settings)
    assert [p.suffix for p in existing.iterdir()] == [".json"]  # no .gitignore put there
    made = tmp_path / "made" / "cache"
    lint_paths([site], settings=Settings(cache_dir=made, root=site.parent))
    assert (made / ".gitignore").read_text() == "# Automatically created by confmig.\n*\n"
    assert len(list(made.glob("*.json"))) == 1
    # written atomically: no temp file left, and a repeat run is served from it
    assert lint_paths([site], settings=Settings(cache_dir=made, root=site.parent)).cached == 1
    assert sorted(p.name for p in made.iterdir() if p.name.startswith(".tmp")) == []
