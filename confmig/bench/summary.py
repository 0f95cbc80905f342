"""The text a person reads at the end: the headline ratios and the syscall counts."""

from __future__ import annotations

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from confmig.bench.capacity import LINKS, capacity, overheads, peak_summaries
from confmig.bench.records import Group, Summary
from confmig.bench.runner import CLIENT_BOUND_FRACTION, BenchReport
from confmig.bench.sweep import sweep_facets
from confmig.bench.targets import BASELINE
from confmig.bench.ui import results_tables


def headline_lines(report: BenchReport) -> list[str]:
    """One line per (condition, non-baseline target): the paired ratio with its min–max and
    the .htaccess lookups per request behind it."""
    lines = []
    for s in report.summaries:
        if s.target == BASELINE or s.ratio is None:
            continue
        base = _summary(report, s, BASELINE)
        what = ("AllowOverride None / All" if s.target == "apache-httpd"
                else f"{s.target} / {BASELINE}")
        text = (f"{s.condition.label}: {what} = {s.ratio.median:.2f}× "
                f"(paired min–max {s.ratio.min:.2f}–{s.ratio.max:.2f}, {s.ratio.n} reps; "
                f"{s.rps.median if s.rps else 0:,.0f} vs "
                f"{base.rps.median if base and base.rps else 0:,.0f} req/s)")
        group = _group(report, s)
        if group is not None:
            text += "; " + _lookups(group, s.target)
        if s.client_bound:
            text += " [client-bound]"
        lines.append(text)
    return lines


def _summary(report: BenchReport, like: Summary, target: str) -> Summary | None:
    return next((x for x in report.summaries
                 if x.condition == like.condition and x.target == target), None)


def _group(report: BenchReport, s: Summary) -> Group | None:
    return next((g for g in report.groups
                 if g.depth == s.condition.depth and g.mpm == s.condition.mpm), None)


def _lookups(group: Group, target: str) -> str:
    base, other = group.target(BASELINE), group.target(target)
    if base is None or other is None or base.syscalls is None or other.syscalls is None:
        return ".htaccess lookups per request: not counted"
    if not base.syscalls.available or not other.syscalls.available:
        reason = base.syscalls.reason or other.syscalls.reason
        return f".htaccess lookups per request: not counted ({reason})"
    b, o = base.syscalls, other.syscalls
    return (f".htaccess lookups per request {_n(b.htaccess_opens)} vs {_n(o.htaccess_opens)}, "
            f"syscalls per request {_n(b.work_syscalls)} vs {_n(o.work_syscalls)}")


def _n(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 0.005 else f"{value:.2f}"


def syscall_table(report: BenchReport) -> Table | None:
    """Per target and group: what strace counted per request."""
    rows = [(g, t) for g in report.groups for t in g.targets if t.syscalls is not None]
    if not rows:
        return None
    table = Table(title="per request, counted with strace (exact)", title_justify="left",
                  title_style="bold", header_style="bold")
    for name in ("depth", "target", ".htaccess opens", "ENOENT/ENOTDIR/hit", "fs calls",
                 "syscalls", "+hand-offs"):
        table.add_column(name, justify="left" if name == "target" else "right")
    for group, target in rows:
        sc = target.syscalls
        assert sc is not None
        depth = "site" if group.depth is None else str(group.depth)
        if not sc.available:
            table.add_row(depth, target.label, "—", "—", "—", "—", sc.reason or "")
            continue
        by = sc.htaccess_by_outcome
        table.add_row(
            depth, target.label, _n(sc.htaccess_opens),
            f"{_n(by.get('ENOENT', 0))}/{_n(by.get('ENOTDIR', 0))}/{_n(by.get('hit', 0))}",
            _n(sc.fs_syscalls), _n(sc.work_syscalls),
            f"{_n(sc.syscalls_median)} ({sc.syscalls_min}–{sc.syscalls_max})",
        )
    return table


def ceiling_line(report: BenchReport) -> str:
    """The best client ceiling per connection setting, and what *client-bound* means."""
    best: dict[tuple[int, bool], float] = {}
    label = ""
    for c in report.ceilings:
        if c.valid:
            key = (c.condition.concurrency, c.condition.keepalive)
            best[key] = max(best.get(key, 0.0), c.rps)
            label = c.label
    if not best:
        return ""
    figures = ", ".join(f"c={conc}{'' if ka else ' no keep-alive'}: {rps:,.0f} req/s"
                        for (conc, ka), rps in sorted(best.items()))
    return (f"{label}: {figures} (best of each); results at "
            f"{CLIENT_BOUND_FRACTION:.0%} of it or more are flagged client-bound")


def sweep_lines(report: BenchReport) -> list[str]:
    """The concurrency sweep in sentences: saturation, slope, crossings (per facet)."""
    lines = []
    for facet in sweep_facets(report.summaries):
        lines.append(f"concurrency sweep, {facet.title}:")
        lines += [f"  {sentence}" for sentence in facet.sentences()]
    return lines


def capacity_table(report: BenchReport) -> Table | None:
    """Each target's best req/s in Mbit/s and requests per month, against three links."""
    rows = [(s, cap) for s in peak_summaries(report.summaries) if (cap := capacity(s))]
    if not rows:
        return None
    table = Table(title="capacity at the measured response size (best concurrency); "
                  "a link marked NETWORK would be full before the server",
                  title_justify="left", title_style="bold", header_style="bold")
    for name in ("target", "c", "req/s", "B/resp", "Mbit/s", "req/month",
                 *(f"{link} link, req/s" for link, _ in LINKS)):
        table.add_column(name, justify="left" if name == "target" else "right")
    for s, cap in rows:
        links = [compact(cap.link_rps(bps)) + (" NETWORK" if cap.network_bound(bps) else "")
                 for _, bps in LINKS]
        table.add_row(s.label, str(s.condition.concurrency), f"{cap.rps:,.0f}",
                      f"{cap.bytes_per_request:,.0f}", f"{cap.mbit_s:,.1f}",
                      compact(cap.requests_per_month), *links)
    return table


#: The client's error kinds that mean a request got no (complete) answer.
FAILED_KINDS = ("connect", "read", "write")


def large_rows(report: BenchReport) -> list[Summary]:
    """The ``--size large`` summaries, in the order they were measured."""
    return [s for s in report.summaries if s.condition.size == "large"]


def failed_requests(s: Summary) -> int:
    """Requests that got no complete answer: the connection failed, was closed or reset."""
    return sum(s.error_kinds.get(kind, 0) for kind in FAILED_KINDS)


def large_table(report: BenchReport) -> Table | None:
    """``--size large``: throughput and the requests that failed or timed out, per target."""
    rows = large_rows(report)
    if not rows:
        return None
    sizes = ", ".join(str(mb) for mb in report.options.large_sizes_mb)
    table = Table(title=f"large files ({sizes} MB): throughput (MB/s, median with min–max) "
                  "and requests without an answer, summed over the runs", title_justify="left",
                  title_style="bold", header_style="bold")
    for name in ("condition", "target", "MB/s", "req/s", "failed", "non-2xx/3xx",
                 "timed out", "runs without a byte"):
        table.add_column(name, justify="left" if name in ("condition", "target") else "right")
    for s in rows:
        table.add_row(s.condition.label, s.label,
                      s.mb_per_s.format("{:,.0f}") if s.mb_per_s else "—",
                      f"{s.rps.median:,.1f}" if s.rps else "—", str(failed_requests(s)),
                      str(s.error_kinds.get("status", 0)), str(s.error_kinds.get("timeout", 0)),
                      f"{s.failed_runs} of {s.runs + s.failed_runs}")
    return table


def compact(value: float) -> str:
    """``950``, ``31k``, ``12.6M``, ``1.07bn``: a large count at a glance."""
    for threshold, unit, suffix in ((1e9, 1e9, "bn"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if value >= threshold:
            return f"{value / unit:.3g}{suffix}"
    return f"{value:,.0f}"


def capacity_lines(report: BenchReport) -> list[str]:
    return [cap.limit_sentence(s.label) for s in peak_summaries(report.summaries)
            if (cap := capacity(s))]


def overhead_table(report: BenchReport) -> Table | None:
    """Solution / mean / adjusted mean: the application servers' own cost per request."""
    rows = overheads(report.summaries)
    if not rows:
        return None
    table = Table(title="overhead over the cheapest static server (mean time per request, "
                  "ms)", title_justify="left", title_style="bold", header_style="bold")
    for name in ("condition", "solution", "mean", "adjusted mean"):
        table.add_column(name, justify="left" if name in ("condition", "solution") else "right")
    for row in rows:
        table.add_row(row.condition.label, row.label, f"{row.mean_ms:.3f}",
                      "—" if row.adjusted_ms is None else f"{row.adjusted_ms:+.3f}")
    return table


def summary_renderable(report: BenchReport) -> RenderableType:
    """Everything printed at the end of ``confmig bench``."""
    parts: list[RenderableType] = list(results_tables(report.summaries, BASELINE))
    table = syscall_table(report)
    if table is not None:
        parts.append(table)
    ceiling = ceiling_line(report)
    if ceiling:
        parts.append(Text(ceiling, style="dim"))
    for target in report.failed_targets:
        parts.append(Text(f"✗ {target.label}: not measured — {target.error}", style="bold red"))
    lines = headline_lines(report)
    if lines:
        parts.append(Text("\n".join(lines), style="bold"))
    for extra in (large_table(report), overhead_table(report), capacity_table(report)):
        if extra is not None:
            parts.append(extra)
    more = capacity_lines(report) + sweep_lines(report)
    if more:
        parts.append(Text("\n".join(more)))
    for warning in report.warnings:
        parts.append(Text(f"note: {warning}", style="yellow"))
    if report.workdir:
        parts.append(Text(f"kept: {report.workdir}"))
    parts.append(Text(f"finished in {report.elapsed_s:.0f} s", style="dim"))
    return RichGroup(*parts)
