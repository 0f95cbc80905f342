"""Every registered rule: docs complete, ``bad`` trips it, ``good`` does not."""

from __future__ import annotations

import re

import pytest

from confmig.lint.rule import Rule, all_rules
from confmig.lint.testing import codes, lint_example

RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_bad_example_trips_the_rule(rule: type[Rule]) -> None:
    found = codes(lint_example(rule, "bad"))
    assert rule.code in found, f"{rule.code} bad example gave {found}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_good_example_is_clean_for_the_rule(rule: type[Rule]) -> None:
    found = [f for f in lint_example(rule, "good") if f.code == rule.code]
    assert not found, f"{rule.code} good example gave {found}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_docs_are_complete(rule: type[Rule]) -> None:
    assert re.fullmatch(r"[A-Z]+\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
    for attr in ("summary", "rationale", "bad", "good"):
        assert getattr(rule, attr).strip(), f"{rule.code}.{attr} is empty"
    assert "\n" not in rule.summary
    assert rule.example_kind in ("htaccess", "server")


def test_codes_and_names_are_unique() -> None:
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)


def test_my_rule_families_are_registered() -> None:
    have = {r.code for r in RULES}
    for code in ("SYN001", "SYN002", "SYN003", "SYN004", "SYN005", "SYN006", "CTX001",
                 "CTX002", "CTX003", "CTX004", "CTX005", "CTX006", "CTX007", "CTX008",
                 "LINT001", "LINT002"):
        assert code in have
