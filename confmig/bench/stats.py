"""Statistics for repeated runs: medians with min–max, and ratios paired run by run.

Runs alternate between targets (A B A B …), so the i-th run of a target and the i-th run of the
baseline were taken moments apart; dividing them pair by pair cancels slow machine drift that a
ratio of two medians would keep.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    """The median of some values with their minimum and maximum."""

    median: float
    min: float
    max: float
    n: int

    def to_json(self) -> dict[str, float | int]:
        return {"median": self.median, "min": self.min, "max": self.max, "n": self.n}

    def format(self, fmt: str = "{:,.0f}") -> str:
        """``"21,300 (20,900–21,800)"``; just the median when there is one value."""
        if self.n <= 1 or self.min == self.max:
            return fmt.format(self.median)
        return f"{fmt.format(self.median)} ({fmt.format(self.min)}–{fmt.format(self.max)})"


def spread(values: Sequence[float]) -> Spread:
    """Median, min and max of *values* (at least one)."""
    if not values:
        raise ValueError("spread() needs at least one value")
    return Spread(float(statistics.median(values)), float(min(values)), float(max(values)),
                  len(values))


def paired_ratios(values: Sequence[float], baseline: Sequence[float]) -> list[float]:
    """``values[i] / baseline[i]`` for each repetition i present in both.

    Pairs whose baseline is zero (a failed run) are left out rather than made infinite.
    """
    return [v / b for v, b in zip(values, baseline, strict=False) if b > 0]


def ratio_spread(values: Sequence[float], baseline: Sequence[float]) -> Spread | None:
    """Median and min–max of the paired ratios, or None when there is no valid pair."""
    ratios = paired_ratios(values, baseline)
    return spread(ratios) if ratios else None


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile of already sorted values (what wrk and ab report)."""
    if not sorted_values:
        return 0.0
    if not 0 < pct <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {pct}")
    rank = max(1, -(-len(sorted_values) * pct // 100))  # ceil without floats
    return float(sorted_values[int(rank) - 1])


def latency_summary(latencies_ms: Sequence[float]) -> dict[str, float]:
    """Mean, p50/p90/p99 (nearest rank, as wrk and ab report them) and max of every
    request's latency; zeros when there is none."""
    values = sorted(latencies_ms)
    if not values:
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}
    return {"p50": percentile(values, 50), "p90": percentile(values, 90),
            "p99": percentile(values, 99), "mean": statistics.fmean(values),
            "max": values[-1]}
