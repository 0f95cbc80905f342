"""``--html FILE``: one self-contained page (inline CSS and SVG, no script, no network)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from confmig.bench.capacity import LINKS, capacity, overheads, peak_summaries
from confmig.bench.charts import PALETTE, Point, Series, bar_chart, line_chart
from confmig.bench.records import Summary
from confmig.bench.runner import BenchReport
from confmig.bench.summary import capacity_lines, failed_requests, headline_lines, large_rows
from confmig.bench.sweep import SweepFacet, sweep_facets
from confmig.bench.targets import BASELINE
from confmig.fs import atomic_write

MAX_BAR_CHARTS = 4


def defang(value: object) -> object:
    """Break ``scheme://`` in free text (an error quoting a ``Location`` header, say) with a
    zero-width space, so the page holds no URL a browser or a checker could follow.  Markup
    the templates built themselves (anything with ``__html__``, jinja2's safe-string
    protocol) is left alone."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return value.replace("://", ":/\u200b/")
    return value


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("confmig.bench", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=defang,
    )


def _point(s: Summary, value: str) -> Point | None:
    if value == "rps":
        if s.rps is None:
            return None
        return Point(0, s.rps.median, s.rps.min, s.rps.max)
    spread = s.latency_ms.get(value)
    return Point(0, spread.median, spread.min, spread.max) if spread else None


def _sweep_charts(summaries: Sequence[Summary], x_of: Callable[[Summary], float | None],
                  facet_of: Callable[[Summary], Hashable], facet_title: Callable[[Any], str],
                  x_label: str, log_x: bool) -> list[str]:
    """req/s and latency (p50 solid, p99 dashed) against one swept dimension, one pair of
    charts per combination of the other dimensions."""
    facets: dict[Hashable, list[Summary]] = defaultdict(list)
    for s in summaries:
        if x_of(s) is not None:
            facets[facet_of(s)].append(s)
    charts = []
    for facet, items in facets.items():
        if len({x_of(s) for s in items}) < 2:
            continue
        rps: dict[str, Series] = {}
        latency: dict[str, Series] = {}
        for s in items:
            x = float(x_of(s) or 0)
            point = _point(s, "rps")
            if point is not None:
                rps.setdefault(s.label, Series(s.label)).points.append(
                    Point(x, point.y, point.low, point.high))
            for key, dashed in (("p50", False), ("p99", True)):
                lp = _point(s, key)
                if lp is not None:
                    name = f"{s.label} {key}"
                    latency.setdefault(name, Series(name, dashed=dashed)).points.append(
                        Point(x, lp.y, lp.low, lp.high))
        _share_colors(list(latency.values()), list(rps))
        title = facet_title(facet)
        charts.append(line_chart(f"req/s vs {x_label} — {title}", list(rps.values()), x_label,
                                 "requests per second", log_x=log_x))
        charts.append(line_chart(f"latency vs {x_label} — {title}", list(latency.values()),
                                 x_label, "latency (ms)", log_x=log_x))
    return [c for c in charts if c]


def _share_colors(latency: list[Series], targets: list[str]) -> None:
    """p50 and p99 of one target get the target's colour."""
    for series in latency:
        name = series.name.rsplit(" ", 1)[0]
        if name in targets:
            series.color = PALETTE[targets.index(name) % len(PALETTE)]


def charts(report: BenchReport) -> list[str]:
    """Every chart of the report, as SVG markup."""
    summaries = report.summaries
    out: list[str] = []
    by_condition: dict[Any, list[Summary]] = defaultdict(list)
    for s in summaries:
        by_condition[s.condition].append(s)
    if len(by_condition) <= MAX_BAR_CHARTS:  # sweeps are shown as lines below
        for condition, items in by_condition.items():
            bars = [(s.label, p) for s in items if (p := _point(s, "rps")) is not None]
            out.append(bar_chart(f"req/s — {condition.label}", bars, "requests per second"))
    out += _sweep_charts(
        summaries, lambda s: s.condition.concurrency,
        lambda s: (s.condition.depth, s.condition.keepalive, s.condition.urls),
        lambda f: f"depth {f[0]}, {'keep-alive' if f[1] else 'no keep-alive'}, {f[2]}",
        "concurrency", log_x=True)
    out += _sweep_charts(
        summaries, lambda s: s.condition.depth,
        lambda s: (s.condition.concurrency, s.condition.keepalive, s.condition.urls),
        lambda f: f"c={f[0]}, {'keep-alive' if f[1] else 'no keep-alive'}, {f[2]}",
        "depth", log_x=False)
    return [c for c in out if c]


def mean_latency_chart(facet: SweepFacet, summaries: Sequence[Summary]) -> str:
    """The sweep's chart: mean latency against concurrency, one line per target (whiskers:
    min–max over the repetitions)."""
    series = []
    for target in facet.targets:
        points = []
        for s in summaries:
            mean = s.latency_ms.get("mean")
            if s.target == target.target and mean is not None and _title(s) == facet.title:
                points.append(Point(s.condition.concurrency, mean.median, mean.min, mean.max))
        series.append(Series(target.label, points))
    return line_chart(f"mean latency vs concurrency — {facet.title}", series, "concurrency",
                      "mean latency (ms)", log_x=True)


def _title(s: Summary) -> str:
    """The facet title of *s* (as :func:`confmig.bench.sweep.sweep_facets` writes it)."""
    c = s.condition
    where = "site" if c.depth is None else f"depth {c.depth}"
    ka = "keep-alive" if c.keepalive else "no keep-alive"
    return f"{where}, {c.mpm}, {ka}, {c.urls}, {c.size} files"


def _capacity_rows(report: BenchReport) -> list[dict[str, Any]]:
    rows = []
    for s in peak_summaries(report.summaries):
        cap = capacity(s)
        if cap is None:
            continue
        rows.append({"summary": s, "cap": cap,
                     "links": [(cap.link_rps(bps), cap.network_bound(bps)) for _, bps in LINKS]})
    return rows


def render_html(report: BenchReport) -> str:
    """The report page as one string."""
    data = report.to_json()
    facets = sweep_facets(report.summaries)
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report, data=data, charts=charts(report), headlines=headline_lines(report),
        baseline=BASELINE, meta=data["meta"], options=data["options"],
        sweeps=[(f, mean_latency_chart(f, report.summaries), f.sentences()) for f in facets],
        overheads=overheads(report.summaries), capacity_rows=_capacity_rows(report),
        capacity_lines=capacity_lines(report), links=[name for name, _ in LINKS],
        large_rows=[(s, failed_requests(s)) for s in large_rows(report)],
    )


def write_html(report: BenchReport, path: Path) -> None:
    """Atomically, replacing an earlier report (:func:`confmig.fs.atomic_write`)."""
    atomic_write(path, render_html(report), force=True)
