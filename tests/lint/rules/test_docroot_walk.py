"""SEC002 and PERF001 read the docroot from one walk (confmig.lint.rules.docroot_walk): it
finds what each found with an ``os.walk`` of its own — the same sensitive files in the same
order, the same deepest directory — and is taken once per run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths
from confmig.lint.rules import docroot_walk
from confmig.lint.rules.sec.exposure import VCS_DIRS, SampleFile, sensitive
from confmig.lint.testing import write_tree
from confmig.load.docroot import scan_docroot


def os_walk_reading(root: str, limit: int) -> tuple[list[SampleFile], str]:
    """What the two rules computed before, each with its own os.walk (symlinks and VCS
    directories not entered, at most ``limit`` entries)."""
    exposed: list[SampleFile] = []
    seen = 0
    for directory, dirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        url_dir = "/" if rel == "." else "/" + rel.replace(os.sep, "/") + "/"
        for name in sorted(d for d in dirs if d in VCS_DIRS):
            probe = "HEAD" if name == ".git" else "entries"
            exposed.append(SampleFile(f"{url_dir}{name}/{probe}",
                                      os.path.join(directory, name, probe), f"{url_dir}{name}/"))
        dirs[:] = sorted(d for d in dirs if d not in VCS_DIRS
                         and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(files):
            if sensitive(name):
                exposed.append(SampleFile(url_dir + name, os.path.join(directory, name),
                                          url_dir + name))
        seen += len(files) + len(dirs)
        if seen > limit:
            break
    best, best_depth, seen = root, 0, 0
    base = len([p for p in os.path.normpath(root).split("/") if p])
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in VCS_DIRS
                         and not os.path.islink(os.path.join(directory, d)))
        depth = len([p for p in os.path.normpath(directory).split("/") if p]) - base
        if depth > best_depth:
            best, best_depth = directory, depth
        seen += len(dirs) + len(files)
        if seen > limit:
            break
    return exposed, best


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    write_tree(root, {
        ".htaccess": "Options -Indexes\n", ".env": "X=1\n", "b.sql": "--\n",
        "a/.env.local": "X\n", "a/b/c/d/e/deep.txt": "x\n", "a/b/old.php.bak": "x\n",
        "z/y/x/w/v/u/deeper.txt": "x\n", ".git/HEAD": "ref\n", ".git/x/y/z/q/r/s/t/u": "x\n",
        ".svn/entries": "x\n", "m/.hg/store/a.bak": "x\n", "m/n~": "x\n",
        "outside/q/r/s/t/u/v/w/x/y.sql": "x\n",
    })
    (root / "link").symlink_to(root / "outside")           # a link to a directory: not entered
    (root / "dangling.bak").symlink_to(root / "nothing")   # a dangling link is a file
    (root / "file.swp").symlink_to(root / "b.sql")         # so is a link to a file
    return root


@pytest.mark.parametrize("spelling", ["abs", "rel", "slash"])
def test_one_walk_finds_what_each_rule_found_with_its_own(site: Path, spelling: str,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.chdir(site.parent)
    root = {"abs": str(site), "rel": "site", "slash": "site/"}[spelling]
    walked = docroot_walk.walk(root)
    exposed, deepest = os_walk_reading(root, docroot_walk.MAX_ENTRIES)
    assert walked.exposed == exposed and walked.deepest == deepest
    assert {s.shown for s in exposed} >= {"/.env", "/.git/", "/a/.env.local", "/dangling.bak",
                                          "/file.swp", "/m/.hg/", "/m/n~", "/.svn/"}
    assert deepest.endswith(os.path.join("outside", "q", "r", "s", "t", "u", "v", "w", "x"))


def test_the_walk_stops_where_the_rules_stopped(site: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for limit in (3, 8, 15):
        monkeypatch.setattr(docroot_walk, "MAX_ENTRIES", limit)
        walked = docroot_walk.walk(str(site))
        exposed, deepest = os_walk_reading(str(site), limit)
        assert (walked.exposed, walked.deepest) == (exposed, deepest), limit


@pytest.mark.parametrize("follow", [False, True])
def test_the_reading_from_the_lints_own_walk_is_the_same(site: Path, follow: bool) -> None:
    collector = docroot_walk.Collector(str(site))
    scan_docroot(site, follow_symlinks=follow, on_listing=collector)
    assert collector.result() == docroot_walk.walk(str(site))


def test_a_directory_the_lints_walk_does_not_list_is_read_on_its_own(site: Path) -> None:
    # the lint's walk does not enter a directory named like the access file (Apache
    # answers 403 for its parent), os.walk's reading does: read with a walk of its own
    _access_named_directory(site)
    collector = docroot_walk.Collector(str(site))
    scan_docroot(site, on_listing=collector)
    assert collector.result() is None
    assert "/x/.htaccess/in/.env" in {s.shown for s in docroot_walk.walk(str(site)).exposed}


def test_the_reading_from_the_lints_walk_is_right_or_not_taken_at_every_limit(
        site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _access_named_directory(site)
    write_tree(site / "zz", {"a/b.bak": "x\n", "c/d.sql": "x\n"})
    for limit in range(1, 40):
        monkeypatch.setattr(docroot_walk, "MAX_ENTRIES", limit)
        collector = docroot_walk.Collector(str(site))
        scan_docroot(site, on_listing=collector)
        assert collector.result() in (None, docroot_walk.walk(str(site))), limit


def _access_named_directory(root: Path) -> None:
    (root / "x" / ".htaccess" / "in").mkdir(parents=True)
    (root / "x" / ".htaccess" / "in" / ".env").write_text("X\n")


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real_walk = docroot_walk.walk

    def counting(root: str) -> docroot_walk.DocrootWalk:
        calls.append(root)
        return real_walk(root)

    monkeypatch.setattr(docroot_walk, "walk", counting)
    return calls


def test_a_lint_lists_the_docroot_once_for_itself_and_both_rules(
        site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counted(monkeypatch)
    found = lint_paths([site], settings=Settings(cache=False))
    assert calls == []                    # the rules read the lint's own listings
    assert {"SEC002", "PERF001"} <= {f.code for f in found.findings}
    _access_named_directory(site)
    again = lint_paths([site], settings=Settings(cache=False))
    assert calls == [str(site)]           # one walk of their own, shared by both
    assert {"SEC002", "PERF001"} <= {f.code for f in again.findings}


def test_with_a_cache_the_rules_read_the_docroot_once_themselves(
        site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (a cache may hold the tree rules' findings: the lint's walk does not read for them)
    calls = _counted(monkeypatch)
    settings = Settings(cache=True, cache_dir=tmp_path / "cache")
    first = lint_paths([site], settings=settings)
    assert calls == [str(site)]
    again = lint_paths([site], settings=settings)
    assert calls == [str(site)] and again.cached         # the findings came from the cache
    assert again.findings == first.findings
