"""The HTML report is self-contained; the charts and JSON hold what was measured."""

from __future__ import annotations

import io
import json
import re

from confmig.bench.charts import Point, Series, bar_chart, line_chart, nice_ticks
from confmig.bench.check import CheckResult
from confmig.bench.clients import LoadResult
from confmig.bench.options import BenchOptions
from confmig.bench.records import Condition, Group, RunRecord, TargetRecord, summarize_runs
from confmig.bench.report_html import render_html
from confmig.bench.runner import BenchReport
from confmig.bench.summary import headline_lines
from confmig.bench.syscalls import SyscallSummary

META = {"confmig": "0", "created": "2026-01-01T00:00:00+00:00", "apache": "2.4.71",
        "nginx": "1.22.1", "loadavg": [0.1, 0.1, 0.1],
        "client": {"name": "wrk", "version": "4.1.0", "warning": None},
        "pinning": {"server": [0], "client": [1], "note": "server pinned to core 0"},
        "client_bound_fraction": 0.8}


def result(rps: float, p50: float) -> LoadResult:
    return LoadResult(requests=int(rps * 2), duration_s=2.0,
                      latency_ms={"p50": p50, "p90": p50 * 2, "p99": p50 * 4})


def sample_report() -> BenchReport:
    options = BenchOptions(depth_sweep=(1, 10), concurrency=(1, 10), repeat=2, mpms=("event",))
    report = BenchReport(options, dict(META))
    seq = 0
    for depth in (1, 10):
        group = Group(depth, "event", {"docroot": "/tmp/x"}, ["/0/1.bar"])
        for name, opens in (("apache-htaccess", depth + 2), ("apache-httpd", 0)):
            record = TargetRecord(name, f"{name} (event)", "d", started=True,
                                  check=CheckResult(name, checked=3),
                                  syscalls=SyscallSummary(True, requests=90,
                                                          htaccess_opens=opens,
                                                          work_syscalls=8 + opens))
            group.targets.append(record)
        group.targets.append(TargetRecord(
            "apache-broken", "apache-broken (event)", "d", started=True,
            check=CheckResult("apache-broken", checked=3, differences=[
                {"path": "/0/1.bar", "what": "header location: 'http://example.test/1.bar'"}]),
            error="answers differ: Location http://example.test/1.bar"))
        report.groups.append(group)
        for conc in (1, 10):
            cond = Condition(depth, "event", True, conc, "deepest", "small")
            for rep in range(2):
                for name, base in (("apache-htaccess", 20000.0), ("apache-httpd", 28000.0)):
                    seq += 1
                    rps = base / depth ** 0.1 * (1 + rep / 10) * min(conc, 4) / 4
                    report.runs.append(RunRecord(seq, cond, name, f"{name} (event)", rep,
                                                 "t", result(rps, 0.3 * conc)))
    report.summaries = summarize_runs(report.runs, "apache-htaccess")
    report.ceilings.append(RunRecord(0, Condition(1, "event", True, 10, "deepest", "small"),
                                     "client-ceiling", "client ceiling (nginx)", 0, "t",
                                     result(100000, 0.1), kind="ceiling"))
    report.warnings.append("see http://example.test/ for nothing")
    return report


def test_html_is_self_contained() -> None:
    html = render_html(sample_report())
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?://", html), "the report must not reference the network"
    assert not re.search(r"""(?:src|href)\s*=|@import|url\(""", html)
    assert "<script" not in html
    assert html.count("<svg") >= 4  # bars per condition + vs concurrency + vs depth


def test_html_shows_headline_counts_and_failures() -> None:
    html = render_html(sample_report())
    assert "AllowOverride None / All" in html
    assert "depth 10, apache-broken (event): not measured" in html
    assert "req/s vs concurrency" in html and "latency vs depth" in html
    assert ">12<" in html  # depth 10: .htaccess open attempts per request


def test_headline_pairs_runs() -> None:
    lines = headline_lines(sample_report())
    assert len(lines) == 4  # 2 depths x 2 concurrencies
    assert all("AllowOverride None / All = 1.40×" in line for line in lines)
    assert ".htaccess lookups per request 12 vs 0" in lines[-1]


def test_json_holds_every_raw_run() -> None:
    data = json.loads(json.dumps(sample_report().to_json()))
    assert data["schema"] == "confmig-bench/1"
    assert len(data["runs"]) == 16
    run = data["runs"][0]
    assert {"seq", "target", "rep", "depth", "mpm", "concurrency", "keepalive", "rps",
            "latency_ms", "requests", "duration_s", "errors", "client_bound"} <= set(run)
    summary = data["summaries"][1]
    assert summary["ratio_to_baseline"]["median"] == 1.4
    assert {"median", "min", "max", "n"} == set(summary["rps"])


def test_chart_primitives() -> None:
    assert nice_ticks(0, 27000)[-1] >= 27000
    svg = line_chart("t", [Series("a", [Point(1, 5, 4, 6), Point(10, 8)])], "x", "y",
                     log_x=True)
    assert svg.startswith("<svg") and "polyline" in svg and "xmlns" not in svg
    assert line_chart("empty", [], "x", "y") == ""
    bars = bar_chart("b", [("a <&>", Point(0, 3, 2, 4))], "req/s")
    assert "a &lt;&amp;&gt;" in bars


def sweep_report() -> BenchReport:
    """apache-httpd and flask-gunicorn over a concurrency sweep, 2 repetitions each."""
    options = BenchOptions(concurrency=(1, 2, 10), repeat=2, mpms=("event",),
                           targets=("apache-htaccess", "apache-httpd", "flask-gunicorn"))
    report = BenchReport(options, dict(META))
    seq = 0
    for conc in (1, 2, 10):
        cond = Condition(10, "event", True, conc, "deepest", "small")
        for rep in range(2):
            for name, peak, floor in (("apache-htaccess", 10_000, 0.3),
                                      ("apache-httpd", 18_000, 0.2),
                                      ("flask-gunicorn", 700, 1.5)):
                seq += 1
                rps = min(conc * 1000 / floor, peak) * (1 + rep / 20)
                mean = conc / rps * 1000
                report.runs.append(RunRecord(seq, cond, name, name, rep, "t", LoadResult(
                    requests=int(rps * 2), duration_s=2.0, bytes=int(rps * 2) * 400,
                    latency_ms={"mean": mean, "p50": mean, "p90": mean * 2,
                                "p99": mean * 3})))
    report.summaries = summarize_runs(report.runs, "apache-htaccess")
    return report


def test_html_answers_the_sweep_overhead_and_capacity_questions() -> None:
    report = sweep_report()
    html = render_html(report)
    assert not re.search(r"https?://", html)
    assert "<h2>Latency against concurrency</h2>" in html
    assert "mean latency vs concurrency — depth 10, event, keep-alive, deepest, small" in html
    assert "flask-gunicorn: saturated already at c=1" in html
    assert "<h2>Overhead over a baseline</h2>" in html
    assert "<h2>Capacity in operators' units</h2>" in html
    assert "the server, not the network, is the limit" in html
    summary = next(s for s in report.summaries if s.target == "flask-gunicorn"
                   and s.condition.concurrency == 10)
    static = next(s for s in report.summaries if s.target == "apache-httpd"
                  and s.condition.concurrency == 10)
    adjusted = summary.latency_ms["mean"].median - static.latency_ms["mean"].median
    assert f"{adjusted:+.3f}" in html  # flask's mean minus the cheapest static server's
    assert summary.bytes_per_request == 400.0
    data = json.loads(json.dumps(report.to_json()))
    assert {"mean", "p50", "p90", "p99"} == set(data["summaries"][0]["latency_ms"])


def test_the_printed_summary_has_the_same_sections() -> None:
    from rich.console import Console

    from confmig.bench.summary import summary_renderable

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(summary_renderable(sweep_report()))
    text = console.export_text()
    assert "overhead over the cheapest static server" in text
    assert "capacity at the measured response size" in text
    assert "concurrency sweep, depth 10, event, keep-alive, deepest, small files:" in text
    assert "flask-gunicorn: saturated already at c=1" in text
