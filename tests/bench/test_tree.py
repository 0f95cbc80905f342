"""The generated tree and URL selection."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.bench.tree import (
    HEADER_NAME,
    SiteFiles,
    TreeSpec,
    expected_htaccess_opens,
    file_name,
    generate_tree,
    htaccess_text,
    level_dir,
    scan_site,
)
from confmig.bench.urls import select_urls, url_level


@pytest.fixture
def tree() -> Iterator[SiteFiles]:
    site = generate_tree(TreeSpec(depth=4, files=6, htaccess="leaf"))
    yield site
    shutil.rmtree(site.docroot, ignore_errors=True)


def test_chain_levels_and_file_names(tree: SiteFiles) -> None:
    root = tree.docroot
    assert level_dir(0) == "" and level_dir(3) == "0/1/2"
    for level in range(5):
        directory = root / level_dir(level) if level else root
        names = sorted(p.name for p in directory.iterdir() if p.is_file()
                       and p.name != ".htaccess")
        assert names == sorted(["0.foo", "1.bar", "2.foo", "3.bar", "4.foo", "5.bar"])
    assert [p.name for p in root.iterdir() if p.is_dir()] == ["0"]
    assert not (root / "0/1/2/3/4").exists()
    assert tree.deepest_level == 4
    assert tree.file_count == 5 * 6
    assert file_name(6) == "6.foo" and file_name(7) == "7.bar"


def test_leaf_htaccess_only_in_the_deepest_directory(tree: SiteFiles) -> None:
    found = sorted(str(p.relative_to(tree.docroot)) for p in tree.docroot.rglob(".htaccess"))
    assert found == ["0/1/2/3/.htaccess"]
    assert tree.htaccess_levels == (4,)
    text = (tree.docroot / "0/1/2/3/.htaccess").read_text()
    for needle in ("AddType text/plain .bar", "AddHandler", "RewriteEngine On",
                   f'Header set {HEADER_NAME} "level-4"'):
        assert needle in text


@pytest.mark.parametrize(("mode", "levels"), [
    ("leaf", [6]), ("every", [1, 2, 3, 4, 5, 6]), ("2", [2, 4, 6]), ("4", [4]), ("7", []),
])
def test_htaccess_placement(mode: str, levels: list[int]) -> None:
    spec = TreeSpec(depth=6, files=1, htaccess=mode)
    assert [lvl for lvl in range(0, 7) if spec.has_htaccess(lvl)] == levels


def test_files_share_one_body_and_workers_can_read_them(tree: SiteFiles) -> None:
    files = [tree.docroot / "0.foo", tree.docroot / "0/1/2/3/5.bar"]
    assert files[0].read_bytes() == files[1].read_bytes()
    assert len(files[0].read_bytes()) == 128
    assert os.stat(tree.docroot).st_mode & 0o755 == 0o755
    assert os.stat(files[1]).st_mode & 0o644 == 0o644
    assert not list(tree.docroot.parent.glob(f".{tree.docroot.name}.*body"))


def test_large_files() -> None:
    site = generate_tree(TreeSpec(depth=1, files=2, size="large"))
    try:
        # media-sized (--size large: 20, 50, 100, 150 MB cycled); tests/bench/test_large.py
        assert (site.docroot / "0/1.bar").stat().st_size == 50 * 1024 * 1024
    finally:
        shutil.rmtree(site.docroot)


def test_expected_htaccess_opens_formula() -> None:
    # docroot + one per directory on the way + FILE/.htaccess
    assert expected_htaccess_opens(10) == 12
    assert expected_htaccess_opens(3) == 5
    assert expected_htaccess_opens(0) == 2
    assert expected_htaccess_opens(10, allow_override=False) == 0


def test_htaccess_text_names_its_level() -> None:
    assert '"level-7"' in htaccess_text(7)


def test_url_selection(tree: SiteFiles) -> None:
    deepest = select_urls(tree, "deepest")
    assert len(deepest) == 6 and len(set(deepest)) == 6
    assert all(u.startswith("/0/1/2/3/") and url_level(u) == 4 for u in deepest)
    top = select_urls(tree, "top")
    assert sorted(top) == sorted(f"/{file_name(i)}" for i in range(6))
    assert all(url_level(u) == 0 for u in top)
    rand = select_urls(tree, "random", seed=3)
    assert rand == select_urls(tree, "random", seed=3)  # same sequence for every target
    assert rand != select_urls(tree, "random", seed=4)
    assert len(rand) == 30 and len(set(rand)) == 30
    assert {url_level(u) for u in rand} == {0, 1, 2, 3, 4}
    assert len(select_urls(tree, "random", limit=7)) == 7
    with pytest.raises(ValueError):
        select_urls(tree, "sideways")


def test_scan_existing_site(tmp_path: Path) -> None:
    (tmp_path / "a/b").mkdir(parents=True)
    (tmp_path / "index.html").write_text("x")
    (tmp_path / "a/b/page one.html").write_text("x")
    (tmp_path / "a/.htaccess").write_text("Header set X 1\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text("x")
    site = scan_site(tmp_path)
    assert site.by_level == {0: ["/index.html"], 2: ["/a/b/page%20one.html"]}
    assert site.htaccess_levels == (1,)
    assert select_urls(site, "deepest") == ["/a/b/page%20one.html"]
