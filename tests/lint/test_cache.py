"""The lint cache: a repeat lint parses nothing; a changed file or setting is linted again."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.lint import engine
from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / ".confmig.toml").write_text("")  # the project root: the cache goes here
    root = tmp_path / "site"
    for i in range(3):
        (root / f"d{i}").mkdir(parents=True)
        (root / f"d{i}" / ".htaccess").write_text(f"RewriteEngin On\n# {i}\n")
    return root


def count_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    loads: list[str] = []
    real = engine.load_plan

    def spy(env, plan):  # type: ignore[no-untyped-def]
        loads.append(plan.path)
        return real(env, plan)

    monkeypatch.setattr(engine, "load_plan", spy)
    return loads


def test_repeat_lint_is_served_from_the_cache(site: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    first = lint_paths([site])
    assert first.cached == 0 and len(first.findings) == 3
    assert (site.parent / ".confmig_cache" / ".gitignore").is_file()
    assert not (site / ".confmig_cache").exists()  # never inside the docroot
    loads = count_loads(monkeypatch)
    second = lint_paths([site])
    assert second.cached == 3 and loads == []
    assert second.findings == first.findings


def test_a_changed_file_is_linted_again(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    per_file_only = Settings(select=("SYN",), root=site.parent)  # no tree rule: no re-parse
    lint_paths([site], settings=per_file_only)
    (site / "d1" / ".htaccess").write_text("RewriteEngine On\n")
    loads = count_loads(monkeypatch)
    result = lint_paths([site], settings=per_file_only)
    assert result.cached == 2 and [Path(p).parent.name for p in loads] == ["d1"]
    assert len(result.findings) == 2


def test_tree_rules_see_every_file_after_a_change(site: Path) -> None:
    first = lint_paths([site])
    (site / "d1" / ".htaccess").write_text("RewriteEngin On\n# changed\n")
    second = lint_paths([site])
    assert second.cached == 2
    assert {f.code for f in second.findings} == {f.code for f in first.findings}


def test_settings_are_part_of_the_key(site: Path) -> None:
    lint_paths([site])
    result = lint_paths([site], settings=Settings(select=("CTX",), root=site.parent))
    assert result.cached == 0 and result.findings == []


def test_no_cache_neither_reads_nor_writes(site: Path) -> None:
    lint_paths([site], use_cache=False)
    assert not (site.parent / ".confmig_cache").exists()


def test_a_corrupt_cache_is_ignored(site: Path) -> None:
    lint_paths([site])
    for path in (site.parent / ".confmig_cache").glob("*.json"):
        path.write_text("{not json")
    result = lint_paths([site])
    assert result.cached == 0 and len(result.findings) == 3
