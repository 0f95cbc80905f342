"""A lint keeps its findings a field per column (``lint.finding.Findings``, issue 10: a
DUP002 finding on each of 47,620 lines of a 1 MB file cost 96 bytes of object and 8 of list
each, kept until the reporter writes them), and gives back findings equal to those added."""

from __future__ import annotations

import pickle
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Finding, Findings, Severity, codes_of, severities_of


def _random_findings(seed: int, count: int) -> list[Finding]:
    rng = random.Random(seed)
    return [Finding(rng.choice(["SYN001", "DUP002", "RW003"]), rng.choice(["a", "b", "c"]),
                    rng.choice(["x/.htaccess", "y/.htaccess"]),
                    rng.choice([0, 1, 7, 300, 2 ** 31 - 1, -1]), rng.randint(0, 3),
                    rng.choice(list(Severity)), rng.choice([None, "fix it", ""]),
                    rng.choice([None, 0, 4, 2 ** 31 - 1]))
            for _ in range(count)]


def test_what_is_added_is_what_is_read() -> None:
    for seed in range(10):
        added = _random_findings(seed, 300)
        kept = Findings(added)
        assert len(kept) == 300 and kept == added and list(kept) == added
        assert [kept[i] for i in range(-300, 300)] == added + added
        assert kept[5:17:3] == added[5:17:3]
        assert all(a.severity is b.severity for a, b in zip(kept, added, strict=True))
        assert list(codes_of(kept)) == [f.code for f in added]
        assert list(severities_of(kept)) == [f.severity for f in added]
        assert pickle.loads(pickle.dumps(kept)) == added  # (from a pool worker)
        more = Findings(added[:10])
        more += kept
        more.extend(iter(added[:3]))
        more.append(added[0])
        assert more == added[:10] + added + added[:3] + added[:1]
    with pytest.raises(IndexError):
        Findings()[0]
    assert Findings() == [] and Findings() != [added[0]] and not Findings()


def test_an_integer_that_does_not_fit_is_refused_and_nothing_is_added() -> None:
    kept = Findings([Finding("SYN001", "m", "f", 1, 1, Severity.error)])
    for bad in (Finding("SYN001", "m", "f", 2 ** 31, 1, Severity.error),
                Finding("SYN001", "m", "f", 1, 1, Severity.error, end_column=-2 ** 31),
                Finding("SYN001", "m", "f", "1", 1, Severity.error)):  # type: ignore[arg-type]
        with pytest.raises((OverflowError, TypeError)):
            kept.append(bad)
        assert len(kept) == 1 and kept == [Finding("SYN001", "m", "f", 1, 1, Severity.error)]
    kept.append(Finding("SYN001", "m", "f", 2, 1, Severity.error))
    assert [f.line for f in kept] == [1, 2]


def test_a_lint_keeps_its_findings_in_under_50_bytes_each(tmp_path: Path) -> None:
    """What the findings of a lint hold once it is over (the file's tree is gone): ~42 bytes
    each here, 134 as `Finding` objects in a list (the object, its list slot, its line)."""
    (tmp_path / ".htaccess").write_text('Header set X-A "b c"\n' * 5000)
    settings = Settings(cache=False)
    lint_paths([tmp_path], settings=settings, jobs=1)  # warm: imports, first-use tables
    tracemalloc.start()
    try:
        findings = lint_paths([tmp_path], settings=settings, jobs=1).findings
        held = tracemalloc.get_traced_memory()[0]
        count = len(findings)
        del findings
        size = held - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert count == 5000  # a DUP002 for each line but the first, and PERF005
    assert size < 50 * count, f"{size / count:.0f} bytes per finding"


def test_what_a_rule_yielded_before_it_raised_is_kept() -> None:
    """As ``list.extend`` keeps it (the dispatch then adds the rule's internal error)."""
    def rule() -> Iterator[Finding]:
        for line in range(1, 1200):
            yield Finding("DUP002", "m", "f", line, 1, Severity.info)
        raise RuntimeError("a broken rule")

    kept = Findings()
    with pytest.raises(RuntimeError):
        kept.extend(rule())
    assert [f.line for f in kept] == list(range(1, 1200))


def _many_strings(seed: int, count: int) -> list[Finding]:
    """Findings with more distinct messages, hints and files than a column indexes
    (``_INDEXED``): equal values at different places of a column's table."""
    rng = random.Random(seed)
    return [Finding(rng.choice(["SYN001", "DUP002"]), f"message {rng.randint(0, 700)}",
                    f"d{rng.randint(0, 400)}/.htaccess", rng.choice([0, 5, 300, 70_000, -1]),
                    rng.randint(0, 300), rng.choice(list(Severity)),
                    rng.choice([None, *(f"hint {i}" for i in range(300))]),
                    rng.choice([None, -5, -1, 0, 1, 255, 256, 2 ** 31 - 1]))
            for _ in range(count)]


def test_many_distinct_strings_and_wide_numbers_read_back_sort_and_copy() -> None:
    def key(f: Finding) -> tuple[str, int, int, str, str]:
        return (f.file, f.line, f.column, f.code, f.message)

    for seed in range(4):
        added = _many_strings(seed, 3000)
        kept = Findings(added[:1000])
        kept.extend(iter(added[1000:]))      # (in batches: the columns widen on the way)
        assert kept == added and pickle.loads(pickle.dumps(kept)) == added
        joined = Findings(_random_findings(seed, 50))
        joined += kept                        # (another table: places mapped)
        assert list(joined)[50:] == added
        out = kept.sorted()
        unique = list(dict.fromkeys(added))   # (the first of equal findings, in order)
        assert list(out) == sorted(unique, key=key)
        assert kept == added                  # (sorted() leaves it as it was)


def test_a_finding_costs_a_byte_a_field_when_its_values_repeat_or_are_small() -> None:
    """A rule repeating one message on 60,000 lines: ~8 bytes a finding (lines need two
    bytes, every other field one; ~2 more are Python's free list of the tuples the kinds
    are looked up by); 40 when each column was 4 or 8 bytes a finding."""
    made = [Finding("DUP002", "Header set X-A b c repeats line 1: the repetition changes "
                    "nothing", "site/.htaccess", line, 1, Severity.info, "keep one line")
            for line in range(2, 60_002)]
    tracemalloc.start()
    try:
        kept = Findings(made)
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept == made
    assert size < 12 * len(made), f"{size / len(made):.1f} bytes per finding"
