"""lint.finding.sort_findings: the order findings are reported in (file, line, column, code,
message) and each equal finding once — sorted a field at a time, so that no key tuple per
finding is made (issue 10: the peak of linting a 1 MB file)."""

from __future__ import annotations

import random

from confmig.lint.finding import Finding, Severity, sort_findings


def _key(f: Finding) -> tuple[str, int, int, str, str]:
    return (f.file, f.line, f.column, f.code, f.message)


def _random_findings(seed: int, count: int) -> list[Finding]:
    rng = random.Random(seed)
    return [Finding(rng.choice(["SYN001", "DUP002", "RW003"]), rng.choice(["a", "b", "c"]),
                    rng.choice(["x/.htaccess", "y/.htaccess"]), rng.randint(0, 6),
                    rng.randint(1, 3), rng.choice(list(Severity)),
                    rng.choice([None, "fix it"]), rng.choice([None, 4]))
            for _ in range(count)]


def test_sorted_by_place_code_and_message_with_each_equal_finding_once() -> None:
    for seed in range(20):
        findings = _random_findings(seed, 400)
        out = sort_findings(findings)
        assert [_key(f) for f in out] == sorted(_key(f) for f in set(findings))
        assert len(out) == len(set(findings)) and set(out) == set(findings)


def test_findings_that_differ_only_in_severity_or_hint_are_all_kept() -> None:
    a = Finding("DUP002", "m", "f", 3, 1, Severity.info)
    b = Finding("DUP002", "m", "f", 3, 1, Severity.warning)
    c = Finding("DUP002", "m", "f", 3, 1, Severity.info, hint="h")
    out = sort_findings([a, b, a, c, b, Finding("AAA001", "m", "f", 3, 1, Severity.info)])
    assert out[0].code == "AAA001"
    assert out[1:] == [a, b, c]


def test_an_iterator_and_nothing() -> None:
    assert sort_findings(iter(())) == []
    one = Finding("SYN001", "m", "f", 1, 1, Severity.error)
    assert sort_findings(iter([one, one])) == [one]
