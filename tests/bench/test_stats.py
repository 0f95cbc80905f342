"""Statistics: medians with min–max and ratios paired run by run."""

from __future__ import annotations

import pytest

from confmig.bench.stats import paired_ratios, percentile, ratio_spread, spread


def test_spread_is_median_min_max() -> None:
    s = spread([3.0, 1.0, 2.0, 10.0])
    assert (s.median, s.min, s.max, s.n) == (2.5, 1.0, 10.0, 4)
    assert spread([5]).format() == "5"
    assert spread([1000, 2000, 3000]).format() == "2,000 (1,000–3,000)"


def test_spread_needs_values() -> None:
    with pytest.raises(ValueError):
        spread([])


def test_ratios_are_paired_by_repetition_not_by_median() -> None:
    # Drift: both targets slow down together in the second pair. Paired ratios stay at 1.5,
    # whereas median(target) / median(baseline) would not describe any pair.
    target = [30.0, 15.0, 29.0]
    baseline = [20.0, 10.0, 20.0]
    assert paired_ratios(target, baseline) == [1.5, 1.5, 1.45]
    r = ratio_spread(target, baseline)
    assert r is not None
    assert (r.median, r.min, r.max, r.n) == (1.5, 1.45, 1.5, 3)


def test_failed_baseline_runs_are_left_out_of_the_ratios() -> None:
    assert paired_ratios([10.0, 12.0], [0.0, 6.0]) == [2.0]
    assert ratio_spread([10.0], [0.0]) is None


def test_nearest_rank_percentile() -> None:
    values = sorted(float(v) for v in range(1, 101))
    assert percentile(values, 50) == 50.0
    assert percentile(values, 90) == 90.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) == 0.0


def test_latency_summary_of_known_samples() -> None:
    from confmig.bench.stats import latency_summary

    samples = [float(v) for v in range(100, 0, -1)]  # 100 … 1 ms, unsorted
    assert latency_summary(samples) == {"p50": 50.0, "p90": 90.0, "p99": 99.0,
                                        "mean": 50.5, "max": 100.0}
    skewed = [1.0] * 95 + [100.0] * 5  # 5 % slow requests: p90 misses them, p99 does not
    got = latency_summary(skewed)
    assert (got["p50"], got["p90"], got["p99"], got["max"]) == (1.0, 1.0, 100.0, 100.0)
    assert got["mean"] == pytest.approx(5.95)
    assert latency_summary([]) == {"p50": 0.0, "p90": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}
