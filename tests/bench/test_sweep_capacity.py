"""The concurrency sweep's sentences, the capacity arithmetic and the overhead table, from
known figures."""

from __future__ import annotations

import pytest

from confmig.bench.capacity import (
    LINKS,
    SECONDS_PER_MONTH,
    Capacity,
    capacity,
    overheads,
    peak_summaries,
)
from confmig.bench.records import Condition, Summary
from confmig.bench.stats import spread
from confmig.bench.sweep import SweepPoint, TargetSweep, crossings, fit_line, sweep_facets


def summary(target: str, conc: int, rps: float, mean: float, size: float = 400.0) -> Summary:
    cond = Condition(10, "event", True, conc, "deepest", "small")
    return Summary(cond, target, target, 1, spread([rps]),
                   {"mean": spread([mean]), "p50": spread([mean]), "p90": spread([mean * 2]),
                    "p99": spread([mean * 3])}, None, False, 0, 0, bytes_per_request=size)


def server(target: str, peak: float, floor_ms: float) -> list[Summary]:
    """A server with one request at a time taking *floor_ms*, saturating at *peak* req/s:
    below saturation c / floor, above it the mean latency follows Little's law."""
    out = []
    for conc in (1, 2, 4, 10, 20, 50):
        rps = min(conc * 1000 / floor_ms, peak)
        out.append(summary(target, conc, rps, conc / rps * 1000))
    return out


def test_least_squares_line() -> None:
    fit = fit_line([1, 2, 3, 4], [3, 5, 7, 9])
    assert fit is not None
    assert (fit.slope, fit.intercept, fit.r2) == pytest.approx((2.0, 1.0, 1.0))
    noisy = fit_line([1, 2, 3], [1, 3, 2])
    assert noisy is not None and noisy.r2 == pytest.approx(0.25)
    assert fit_line([5], [1]) is None and fit_line([2, 2], [1, 3]) is None


def test_saturation_and_slope_follow_littles_law() -> None:
    (facet,) = sweep_facets(server("apache-httpd", 10_000, 0.4)
                            + server("flask-gunicorn", 500, 2.0))
    by = {t.target: t for t in facet.targets}
    apache, flask = by["apache-httpd"], by["flask-gunicorn"]
    assert apache.saturation.concurrency == 4  # 2500, 5000, 10000: 10000 from c=4
    assert flask.saturation.concurrency == 1  # one request at a time already fills it
    fit = flask.saturated_fit
    assert fit is not None and fit.slope == pytest.approx(2.0) and fit.r2 == pytest.approx(1)
    assert "already at c=1" in flask.sentence() and "2 ms per added connection" in \
        flask.sentence() and "linear" in flask.sentence()
    assert "from c=4 (10,000 req/s" in apache.sentence()
    assert "0.1 ms per added connection" in apache.sentence()


def test_a_target_still_gaining_is_not_called_saturated() -> None:
    points = [SweepPoint(1, 100, 10), SweepPoint(2, 200, 10), SweepPoint(4, 400, 10)]
    assert "not saturated in this sweep" in TargetSweep("x", "x", points).sentence()


def test_crossings_and_ties() -> None:
    a = TargetSweep("a", "A", [SweepPoint(1, 1, 6.0), SweepPoint(2, 1, 6.0),
                               SweepPoint(10, 1, 6.0)])
    b = TargetSweep("b", "B", [SweepPoint(1, 1, 2.0), SweepPoint(2, 1, 6.2),
                               SweepPoint(10, 1, 14.0)])
    lines = crossings(a, b)
    assert lines[0] == ("A and B cross between c=1 and c=10 (from there B has the higher "
                        "mean latency)")
    assert lines[1] == "A and B: mean latency within 10% of each other at c=2"
    assert crossings(a, a) == ["A and A: mean latency within 10% of each other at c=1, 2, 10"]


def test_capacity_arithmetic() -> None:
    cap = Capacity(rps=1000.0, bytes_per_request=1250.0)
    assert cap.mbit_s == pytest.approx(10.0)  # 1000 × 1250 B × 8 bit
    assert cap.requests_per_month == pytest.approx(1000 * 30 * 86400)
    assert SECONDS_PER_MONTH == 2_592_000
    assert [cap.link_rps(bps) for _, bps in LINKS] == pytest.approx([10_000, 100_000,
                                                                      1_000_000])
    assert not any(cap.network_bound(bps) for _, bps in LINKS)
    assert "the server, not the network, is the limit" in cap.limit_sentence("x")
    big = Capacity(rps=20_000.0, bytes_per_request=10_000.0)  # 1.6 Gbit/s
    assert big.mbit_s == pytest.approx(1600.0)
    assert [big.network_bound(bps) for _, bps in LINKS] == [True, True, False]
    assert big.limit_sentence("nginx") == (
        "nginx: 1,600.0 Mbit/s at 10,000 B per response — it would fill a 100 Mbit/s and a "
        "1 Gbit/s link: there the network, not the server, is the limit")
    assert capacity(summary("x", 1, 100.0, 1.0, size=0.0)) is None


def test_peak_is_the_best_concurrency() -> None:
    (peak,) = peak_summaries(server("nginx", 30_000, 0.1))
    assert peak.condition.concurrency == 4 and peak.rps is not None
    assert peak.rps.median == 30_000


def test_overhead_is_the_mean_minus_the_cheapest_static_server() -> None:
    rows = overheads([summary("apache-htaccess", 10, 1000, 1.9),
                      summary("apache-httpd", 10, 2000, 1.2),
                      summary("nginx", 10, 3000, 0.5),
                      summary("flask-gunicorn", 10, 400, 14.0)])
    table = [(r.label, r.mean_ms, r.adjusted_ms, r.reference) for r in rows]
    assert table == [("nginx", 0.5, None, "nginx"), ("apache-httpd", 1.2, None, "nginx"),
                     ("apache-htaccess", 1.9, None, "nginx"),
                     ("flask-gunicorn", 14.0, pytest.approx(13.5), "nginx")]
    # without an application target (or without a static one) there is nothing to subtract
    assert overheads([summary("nginx", 10, 3000, 0.5)]) == []
    assert overheads([summary("flask-gunicorn", 10, 400, 14.0)]) == []


def test_compact_counts() -> None:
    from confmig.bench.summary import compact

    assert [compact(v) for v in (950, 9_999, 31_407, 314_070, 3_140_703, 1.81e9)] == [
        "950", "9,999", "31.4k", "314k", "3.14M", "1.81bn"]
