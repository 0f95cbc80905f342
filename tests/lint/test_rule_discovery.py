"""Rules are found by walking the rules package: every rule file registers exactly one
complete rule, helpers register none, and nothing registers from elsewhere."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import confmig.lint.rules
from confmig.lint.rule import RULE_FILE, Rule, all_rules, rule_modules

RULES = all_rules()
RULES_DIR = Path(confmig.lint.rules.__file__).parent


def _registered_in(module: str) -> list[type[Rule]]:
    return [r for r in RULES if r.__module__ == module]


@pytest.mark.parametrize("module", rule_modules())
def test_rule_files_register_one_rule_and_helpers_none(module: str) -> None:
    importlib.import_module(module)
    stem = module.rsplit(".", 1)[1]
    found = _registered_in(module)
    if not RULE_FILE.fullmatch(stem):
        assert found == [], f"{module} is a helper but registers {[r.code for r in found]}"
        return
    assert len(found) == 1, f"{module} registers {[r.code for r in found]}"
    rule = found[0]
    assert rule.code == stem.split("_", 1)[0].upper(), (module, rule.code)
    for attr in ("code", "summary", "rationale", "bad", "good"):
        assert getattr(rule, attr, "").strip(), f"{rule.code}.{attr} is empty"


def test_every_rule_file_on_disk_is_discovered() -> None:
    on_disk = {p.stem.split("_", 1)[0].upper() for p in RULES_DIR.rglob("*.py")
               if RULE_FILE.fullmatch(p.stem)}
    assert on_disk == {r.code for r in RULES}


def test_every_rule_comes_from_a_rule_file_of_the_rules_package() -> None:
    for rule in RULES:
        package, _, stem = rule.__module__.rpartition(".")
        assert package.startswith("confmig.lint.rules."), (rule.code, rule.__module__)
        assert RULE_FILE.fullmatch(stem), (rule.code, rule.__module__)


def test_the_family_directory_is_the_code_prefix() -> None:
    for rule in RULES:
        family = rule.__module__.split(".")[-2]
        assert rule.code.startswith(family.upper()), (rule.code, rule.__module__)
