"""What the user sees while the benchmark runs: a live table with progress bars on a terminal,
one line per run otherwise (CI logs, pipes)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from confmig.bench.options import BASELINE
from confmig.bench.records import RunRecord, Summary

Tick = Callable[[float], None]


class BenchUI(Protocol):
    """Callbacks the runner makes; implementations decide how to show them."""

    def begin(self, total_runs: int) -> None: ...

    def phase(self, text: str) -> None: ...

    def message(self, text: str, level: str = "info") -> None: ...

    def run_started(self, label: str, seconds: float | None) -> Tick: ...

    def run_finished(self, record: RunRecord, summaries: Sequence[Summary]) -> None: ...

    def end(self) -> None: ...


_STYLES = {"info": "", "warn": "yellow", "error": "bold red", "ok": "green"}


def results_tables(summaries: Sequence[Summary], baseline: str = BASELINE) -> list[Table]:
    """One table per condition: req/s (median, min–max), latency, and the ratio to the
    baseline paired run by run."""
    by_condition: dict[object, list[Summary]] = {}
    for s in summaries:
        by_condition.setdefault(s.condition, []).append(s)
    tables = []
    for items in by_condition.values():
        table = Table(title=items[0].condition.label, title_justify="left",
                      title_style="bold", header_style="bold")
        for name, justify in (("target", "left"), ("req/s", "right"), ("min–max", "right"),
                              ("p50/p90/p99 ms", "right"), ("÷ baseline", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for s in items:
            flags = []
            if s.client_bound:
                flags.append("[yellow]client-bound[/]")
            if s.errors:
                flags.append(f"[red]{s.errors} errors[/]")
            if s.failed_runs:
                flags.append(f"[red]{s.failed_runs} failed[/]")
            if s.ratio:
                ratio = s.ratio.format("{:.2f}")
            else:
                ratio = "baseline" if s.target == baseline else "—"
            table.add_row(
                " ".join([s.label, *flags]),
                f"{s.rps.median:,.0f}" if s.rps else "—",
                f"{s.rps.min:,.0f}–{s.rps.max:,.0f}" if s.rps and s.rps.n > 1 else "",
                "/".join(_ms(s, key) for key in ("p50", "p90", "p99")),
                ratio,
            )
        tables.append(table)
    return tables


def _ms(summary: Summary, key: str) -> str:
    value = summary.latency_ms.get(key)
    return f"{value.median:.2f}" if value else "—"


def _group(tables: list[Table], *rest: RenderableType) -> Group:
    return Group(*tables, *rest)


class RichUI:
    """Live table + progress bars on a terminal; plain lines elsewhere."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live_mode = console.is_terminal
        self.summaries: Sequence[Summary] = ()
        self.done = 0
        self.total = 0
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TimeRemainingColumn(), console=console,
        )
        self.overall: TaskID | None = None
        self.current: TaskID | None = None
        self.live: Live | None = None

    def _render(self) -> Group:
        return _group(results_tables(self.summaries), self.progress)

    def begin(self, total_runs: int) -> None:
        self.total = total_runs
        if self.live_mode:
            self.overall = self.progress.add_task("all runs", total=total_runs)
            self.current = self.progress.add_task("starting", total=None)
            self.live = Live(get_renderable=self._render, console=self.console,
                             refresh_per_second=4, transient=True)
            self.live.start()

    def phase(self, text: str) -> None:
        if self.live is not None and self.current is not None:
            self.progress.reset(self.current, total=None, completed=0, description=text)
        else:
            self.console.print(f"· {text}", markup=False, highlight=False)

    def message(self, text: str, level: str = "info") -> None:
        self.console.print(text, style=_STYLES.get(level) or None, markup=False,
                           highlight=False)

    def run_started(self, label: str, seconds: float | None) -> Tick:
        if self.live is None or self.current is None:
            return lambda elapsed: None
        task = self.current
        self.progress.reset(task, total=seconds, completed=0, description=label)

        def tick(elapsed: float) -> None:
            self.progress.update(task, completed=min(elapsed, seconds or elapsed))

        return tick

    def run_finished(self, record: RunRecord, summaries: Sequence[Summary]) -> None:
        self.summaries = summaries
        self.done += 1
        if self.live is not None and self.overall is not None:
            self.progress.update(self.overall, completed=self.done)
            return
        if record.result is None:
            line = f"[{self.done}/{self.total}] {record.label} {record.condition.label} " \
                   f"rep {record.rep + 1}: failed: {record.error}"
        else:
            r = record.result
            flag = " (client-bound)" if record.client_bound else ""
            errs = f", {r.error_count} errors" if r.error_count else ""
            line = (f"[{self.done}/{self.total}] {record.label} — {record.condition.label} — "
                    f"rep {record.rep + 1}: {r.rps:,.0f} req/s, p50 "
                    f"{r.latency_ms.get('p50', 0):.2f} ms{errs}{flag}")
        self.console.print(line, markup=False, highlight=False)

    def end(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


class SilentUI:
    """For tests and library use: shows nothing."""

    def begin(self, total_runs: int) -> None:
        pass

    def phase(self, text: str) -> None:
        pass

    def message(self, text: str, level: str = "info") -> None:
        pass

    def run_started(self, label: str, seconds: float | None) -> Tick:
        return lambda elapsed: None

    def run_finished(self, record: RunRecord, summaries: Sequence[Summary]) -> None:
        pass

    def end(self) -> None:
        pass
