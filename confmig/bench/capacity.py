"""Capacity in the units operators plan in, and the overhead of an application server.

*Capacity*: a target's req/s at the measured response size (what the client received per
request: status line, headers and body; TCP/IP framing not counted) as Mbit/s and requests per
30-day month, next to what a 100 Mbit/s, 1 Gbit/s and 10 Gbit/s link can carry at that size —
so a report can say when the link, not the server, would be the limit.

*Overhead*: for the application-server targets, the mean time per request minus the mean of the
cheapest static server measured at the same condition (the adapter's and the application's own
cost): the "solution / mean / adjusted mean" table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from confmig.bench.records import Condition, Summary

LINKS: tuple[tuple[str, float], ...] = (("100 Mbit/s", 100e6), ("1 Gbit/s", 1e9),
                                        ("10 Gbit/s", 10e9))
SECONDS_PER_MONTH = 30 * 24 * 3600


def is_app(target: str) -> bool:
    """Does *target* answer through an application server (a WSGI app), rather than serve
    the files itself?"""
    from confmig.bench.targets import TARGETS

    cls = TARGETS.get(target)
    return bool(cls is not None and cls.uses_wsgi)


@dataclass(frozen=True)
class Capacity:
    """What *rps* requests per second of *bytes_per_request* bytes amount to."""

    rps: float
    bytes_per_request: float

    @property
    def mbit_s(self) -> float:
        return self.rps * self.bytes_per_request * 8 / 1e6

    @property
    def requests_per_month(self) -> float:
        return self.rps * SECONDS_PER_MONTH

    def link_rps(self, bits_per_second: float) -> float:
        """Requests per second a link of *bits_per_second* carries at this size."""
        return bits_per_second / (self.bytes_per_request * 8) if self.bytes_per_request else 0.0

    def network_bound(self, bits_per_second: float) -> bool:
        """Would this link be full before the server is?"""
        return self.mbit_s * 1e6 >= bits_per_second

    def limit_sentence(self, label: str) -> str:
        """Which links the server would fill, said plainly."""
        full = [name for name, bps in LINKS if self.network_bound(bps)]
        size = f"{self.bytes_per_request:,.0f} B per response"
        if not full:
            return (f"{label}: {self.mbit_s:,.1f} Mbit/s at {size} — below 100 Mbit/s: the "
                    "server, not the network, is the limit on every link listed")
        return (f"{label}: {self.mbit_s:,.1f} Mbit/s at {size} — it would fill a "
                f"{' and a '.join(full)} link: there the network, not the server, is the limit")


def capacity(summary: Summary) -> Capacity | None:
    if summary.rps is None or not summary.bytes_per_request:
        return None
    return Capacity(summary.rps.median, summary.bytes_per_request)


@dataclass(frozen=True)
class Overhead:
    """One row of the overhead table."""

    condition: Condition
    label: str
    mean_ms: float
    adjusted_ms: float | None  # None for the static servers
    reference: str  # the cheapest static server's label


def overheads(summaries: Sequence[Summary]) -> list[Overhead]:
    """Per condition with an application target: every target's mean time per request, and
    for application targets the mean minus the cheapest static server's mean."""
    by_condition: dict[Condition, list[Summary]] = defaultdict(list)
    for s in summaries:
        if "mean" in s.latency_ms:
            by_condition[s.condition].append(s)
    rows = []
    for condition, items in by_condition.items():
        static = [s for s in items if not is_app(s.target)]
        if not static or len(static) == len(items):
            continue
        cheapest = min(static, key=lambda s: s.latency_ms["mean"].median)
        base = cheapest.latency_ms["mean"].median
        for s in sorted(items, key=lambda s: s.latency_ms["mean"].median):
            mean = s.latency_ms["mean"].median
            app = is_app(s.target)
            rows.append(Overhead(condition, s.label, mean, mean - base if app else None,
                                 cheapest.label))
    return rows


def peak_summaries(summaries: Sequence[Summary]) -> list[Summary]:
    """Per target and condition other than concurrency: the summary with the most req/s
    (a sweep's capacity is its best point)."""
    best: dict[tuple[object, ...], Summary] = {}
    for s in summaries:
        if s.rps is None:
            continue
        c = s.condition
        key = (c.depth, c.mpm, c.keepalive, c.urls, c.size, s.target)
        if key not in best or s.rps.median > (best[key].rps.median if best[key].rps else 0):
            best[key] = s
    return list(best.values())
