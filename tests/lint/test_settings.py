"""Rule selection (ruff style) and settings files (.confmig.toml, [tool.confmig])."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.lint.config import Settings, SettingsError, load_settings


def test_default_selects_everything() -> None:
    s = Settings()
    assert s.enabled("RW001") and s.enabled("SYN003") and s.enabled("LINT002")


def test_select_by_prefix_and_code() -> None:
    s = Settings(select=("RW", "SEC001"))
    assert s.enabled("RW001") and s.enabled("RW017")
    assert s.enabled("SEC001") and not s.enabled("SEC002")
    assert not s.enabled("CTX001")


def test_ignore_wins_ties_and_specific_select_beats_broad_ignore() -> None:
    assert not Settings(select=("RW",), ignore=("RW",)).enabled("RW001")
    s = Settings(select=("ALL", "RW002"), ignore=("RW",))
    assert s.enabled("RW002") and not s.enabled("RW001") and s.enabled("CTX001")


def test_parse_errors_cannot_be_deselected() -> None:
    assert Settings(select=("RW",)).enabled("SYN001")
    assert Settings(ignore=("SYN",)).enabled("SYN001")


def test_cli_select_replaces_ignore_and_extend_select_add() -> None:
    file = Settings(select=("RW",), ignore=("RW001",))
    s = file.with_cli(select=["CTX"], ignore=["CTX002,CTX003"], extend_select=["SEC001"])
    assert s.enabled("CTX001") and not s.enabled("CTX002") and not s.enabled("CTX003")
    assert s.enabled("SEC001") and not s.enabled("RW002")


def test_unknown_selector_is_a_usage_error() -> None:
    with pytest.raises(SettingsError, match="unknown rule selector 'XYZ'"):
        Settings(select=("XYZ",)).validate(["RW001", "SYN001"])
    Settings(select=("RW", "SYN00")).validate(["RW001", "SYN001"])


def test_confmig_toml_found_upward(tmp_path: Path) -> None:
    (tmp_path / ".confmig.toml").write_text('select = ["RW"]\nignore = ["RW003"]\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    s = load_settings(deep)
    assert s.source == tmp_path / ".confmig.toml" and s.root == tmp_path
    assert s.enabled("RW001") and not s.enabled("RW003") and not s.enabled("CTX001")


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.confmig]\nextend-select = ["X"]\n'
                                             'select = ["SEC"]\n')
    inner = tmp_path / "site"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')
    s = load_settings(inner)
    assert s.source == tmp_path / "pyproject.toml"
    assert s.select == ("SEC",) and s.extend_select == ("X",)


def test_confmig_toml_beats_pyproject_in_the_same_directory(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.confmig]\nselect = ["SEC"]\n')
    (tmp_path / ".confmig.toml").write_text('select = ["RW"]\n')
    assert load_settings(tmp_path).select == ("RW",)


def test_bad_settings_files(tmp_path: Path) -> None:
    (tmp_path / ".confmig.toml").write_text('selct = ["RW"]\n')
    with pytest.raises(SettingsError, match="unknown setting"):
        load_settings(tmp_path)
    (tmp_path / ".confmig.toml").write_text('select = [\n')
    with pytest.raises(SettingsError, match="invalid TOML"):
        load_settings(tmp_path)
    (tmp_path / ".confmig.toml").write_text('select = 3\n')
    with pytest.raises(SettingsError, match="list of rule codes"):
        load_settings(tmp_path)


def test_per_file_ignores(tmp_path: Path) -> None:
    (tmp_path / ".confmig.toml").write_text(
        '[per-file-ignores]\n"legacy/*" = ["DEP"]\n".htaccess" = ["SEC001"]\n')
    s = load_settings(tmp_path)
    assert s.ignored_for_file("DEP001", str(tmp_path / "legacy" / ".htaccess"))
    assert not s.ignored_for_file("DEP001", str(tmp_path / "new" / ".htaccess"))
    assert s.ignored_for_file("SEC001", str(tmp_path / "new" / ".htaccess"))


def test_settings_key_changes_with_selection() -> None:
    assert Settings().key() != Settings(select=("RW",)).key()
    assert Settings().key() == Settings().key()
