"""What a concurrency sweep says, in sentences: where each target saturates, how its latency
grows with concurrency after that, and where two targets' latencies cross.

A server that has reached its peak throughput X serves *c* connections in a mean time of
c / X (Little's law), so past saturation the mean latency grows linearly with concurrency, by
1000 / X ms per added connection; before saturation it stays nearly flat. The slope is fitted
(least squares) over the saturated points and compared with that prediction.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from confmig.bench.records import Summary

#: A target counts as saturated from the first concurrency reaching this share of its peak.
SATURATION_FRACTION = 0.9
#: Two mean latencies within this relative difference count as "about equal".
EQUAL_FRACTION = 0.10


@dataclass(frozen=True)
class SweepPoint:
    concurrency: int
    rps: float
    mean_ms: float


@dataclass(frozen=True)
class Fit:
    """``y = intercept + slope × x`` with its coefficient of determination."""

    slope: float
    intercept: float
    r2: float


@dataclass
class TargetSweep:
    """One target over the swept concurrencies."""

    target: str
    label: str
    points: list[SweepPoint]

    @property
    def peak_rps(self) -> float:
        return max(p.rps for p in self.points)

    @property
    def saturation(self) -> SweepPoint:
        """The first point reaching :data:`SATURATION_FRACTION` of the peak."""
        return next(p for p in self.points if p.rps >= SATURATION_FRACTION * self.peak_rps)

    @property
    def saturated_fit(self) -> Fit | None:
        """Mean latency against concurrency over the saturated points (None: fewer than 2)."""
        c0 = self.saturation.concurrency
        points = [p for p in self.points if p.concurrency >= c0]
        return fit_line([p.concurrency for p in points], [p.mean_ms for p in points])

    def sentence(self) -> str:
        sat, last = self.saturation, self.points[-1]
        fit = self.saturated_fit
        if sat is last and len(self.points) > 1:
            return (f"{self.label}: still gaining at c={last.concurrency} "
                    f"({last.rps:,.0f} req/s, mean {last.mean_ms:.2f} ms): not saturated in "
                    "this sweep")
        where = ("already at c=" if sat is self.points[0] else "from c=") + str(sat.concurrency)
        text = (f"{self.label}: saturated {where} ({sat.rps:,.0f} req/s; peak "
                f"{self.peak_rps:,.0f})")
        if fit is not None:
            shape = "linear" if fit.r2 >= 0.95 else "not linear"
            text += (f"; from there the mean latency grows {fit.slope:.3g} ms per added "
                     f"connection ({shape}, r² {fit.r2:.2f}; Little's law at the peak: "
                     f"{1000 / self.peak_rps:.3g})")
        return text


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Fit | None:
    """Least-squares line through (xs, ys); None with fewer than two distinct x."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return Fit(slope, intercept, r2)


def crossings(a: TargetSweep, b: TargetSweep) -> list[str]:
    """Where the mean latencies of *a* and *b* change order (ties within
    :data:`EQUAL_FRACTION` are skipped over) — and where they are about equal."""
    mean_b = {p.concurrency: p.mean_ms for p in b.points}
    signs: list[tuple[int, int]] = []
    equal: list[int] = []
    for p in a.points:
        other = mean_b.get(p.concurrency)
        if other is None:
            continue
        if abs(p.mean_ms - other) <= EQUAL_FRACTION * max(p.mean_ms, other):
            equal.append(p.concurrency)
            continue
        signs.append((p.concurrency, 1 if p.mean_ms > other else -1))
    out = []
    for (c1, s1), (c2, s2) in itertools.pairwise(signs):
        if s1 != s2:
            slower = a.label if s2 > 0 else b.label
            out.append(f"{a.label} and {b.label} cross between c={c1} and c={c2} "
                       f"(from there {slower} has the higher mean latency)")
    if equal:
        out.append(f"{a.label} and {b.label}: mean latency within "
                   f"{EQUAL_FRACTION:.0%} of each other at c={', '.join(map(str, equal))}")
    return out


@dataclass
class SweepFacet:
    """Every target at one combination of the other dimensions."""

    title: str
    targets: list[TargetSweep]

    def sentences(self) -> list[str]:
        out = [t.sentence() for t in self.targets]
        for i, a in enumerate(self.targets):
            for b in self.targets[i + 1:]:
                out += crossings(a, b)
        return out


def sweep_facets(summaries: Sequence[Summary]) -> list[SweepFacet]:
    """The concurrency sweeps in *summaries*: one facet per (depth, MPM, keep-alive, URLs,
    size) with two or more concurrencies."""
    facets: dict[Hashable, dict[str, list[Summary]]] = defaultdict(lambda: defaultdict(list))
    for s in summaries:
        c = s.condition
        if s.rps is None or "mean" not in s.latency_ms:
            continue
        facets[(c.depth, c.mpm, c.keepalive, c.urls, c.size)][s.target].append(s)
    out = []
    for (depth, mpm, keepalive, urls, size), by_target in facets.items():
        targets = []
        for name, items in by_target.items():
            points = sorted((SweepPoint(s.condition.concurrency, s.rps.median if s.rps else 0,
                                        s.latency_ms["mean"].median) for s in items),
                            key=lambda p: p.concurrency)
            if len(points) >= 2 and all(math.isfinite(p.mean_ms) for p in points):
                targets.append(TargetSweep(name, items[0].label, points))
        if targets:
            where = "site" if depth is None else f"depth {depth}"
            ka = "keep-alive" if keepalive else "no keep-alive"
            out.append(SweepFacet(f"{where}, {mpm}, {ka}, {urls}, {size} files", targets))
    return out
