"""The rules index (confmig/lint/rules/index.py, issue 17): generated from the rule classes and
current, complete, and what a lint run uses to import only the rules a file needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import confmig.lint.rules.index as index_module
from confmig.lint import rule as rule_module
from confmig.lint.dispatch import RuleSet
from confmig.lint.rule import (
    all_rules,
    entry_of,
    render_index,
    rule_entries,
    rule_files,
    rule_index,
)

ROOT = Path(__file__).resolve().parents[2]
RULES = all_rules()
LAZY = [r for r in RULES if entry_of(r).dispatched_only]
# whole-file rules called only for a file with one of their file_directives
LAZY_FILE = [r for r in RULES if entry_of(r).file_hook_only]


def test_the_index_is_what_the_rule_classes_say() -> None:
    """Regenerate it with ``python tools/gen_rule_index.py`` when this fails."""
    assert Path(index_module.__file__).read_text() == render_index()


def test_the_index_names_every_rule_file_and_every_rule() -> None:
    assert sorted(str(e["module"]) for e in index_module.INDEX.values()) == rule_files()
    assert list(rule_index()) == [r.code for r in RULES]
    assert all(rule_index()[r.code] == entry_of(r) for r in RULES)


@pytest.fixture
def index_without_rw003(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    stale = {code: e for code, e in index_module.INDEX.items() if code != "RW003"}
    monkeypatch.setattr(index_module, "INDEX", stale)
    rule_index.cache_clear()
    yield
    rule_index.cache_clear()


def test_an_index_that_misses_a_rule_file_is_not_used(index_without_rw003: None) -> None:
    assert "RW003" in rule_index()      # every rule imported and asked instead
    assert rule_index()["RW003"].module.endswith(".rw003_dangling_cond")


def test_a_rule_registered_from_elsewhere_is_an_entry_of_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    class Extra(RULES[0]):  # type: ignore[misc,valid-type]
        code = "ZZZ999"
    monkeypatch.setitem(rule_module._RULES, "ZZZ999", Extra)
    assert rule_entries()["ZZZ999"] == entry_of(Extra)


def test_rule_set_of_codes_is_the_rule_set_of_the_classes() -> None:
    lazy = RuleSet.of(r.code for r in RULES)
    eager = RuleSet(r() for r in RULES)
    later_files = {c for codes in lazy.pending_files.values() for c in codes}
    assert later_files == {r.code for r in LAZY_FILE} and len(LAZY_FILE) >= 20
    assert [r.code for r in lazy.file_rules] == [r.code for r in eager.file_rules
                                                 if r.code not in later_files]
    assert [r.code for r in lazy.tree_rules] == [r.code for r in eager.tree_rules]
    assert {r.code for r in lazy.rules} | {c for k in lazy.pending.values()
                                          for codes in k.values() for c in codes} \
        | later_files == {r.code for r in RULES}
    assert {r.code for r in LAZY} <= {c for k in lazy.pending.values()
                                      for codes in k.values() for c in codes}


CHILD = """
import json, sys
from confmig.lint.engine import lint_text
module, example = sys.argv[1], json.loads(sys.argv[2])
lint_text("# no directive\\n", kind=example["kind"], filename=example["filename"])
before = module in sys.modules
found = lint_text(example["text"], kind=example["kind"],
                  allow_override=example["allow_override"],
                  allow_override_list=example["allow_override_list"],
                  modules=example["modules"], filename=example["filename"],
                  files=example["files"])
print(json.dumps({"before": before, "after": module in sys.modules,
                  "codes": sorted({f.code for f in found})}))
"""


@pytest.mark.parametrize("rule", LAZY + LAZY_FILE, ids=lambda r: r.code)
def test_a_rule_only_dispatched_to_is_imported_when_a_file_has_its_directive(rule) -> None:  # type: ignore[no-untyped-def]
    # (and a whole-file rule with file_directives when a file has one of them)
    example = {"text": rule.bad, "kind": rule.example_kind,
               "filename": ".htaccess" if rule.example_kind == "htaccess" else "httpd.conf",
               "allow_override": list(rule.example_allow_override),
               "allow_override_list": list(rule.example_allow_override_list),
               "modules": None if rule.example_modules is None else list(rule.example_modules),
               "files": dict(rule.example_files)}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", CHILD, rule.__module__, json.dumps(example)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen == {"before": False, "after": True, "codes": seen["codes"]}
    assert rule.code in seen["codes"]
