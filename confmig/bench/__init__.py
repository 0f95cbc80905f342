"""``confmig bench``: measure what a migration does to speed, on real servers.

Pieces, one job each: :mod:`~confmig.bench.tree` (the generated site),
:mod:`~confmig.bench.urls` (what is requested), :mod:`~confmig.bench.targets` (the servers
compared), :mod:`~confmig.bench.check` (same answers before measuring),
:mod:`~confmig.bench.syscalls` (strace counts), :mod:`~confmig.bench.clients` (wrk / ab /
built-in), :mod:`~confmig.bench.pinning`, :mod:`~confmig.bench.stats`,
:mod:`~confmig.bench.runner` (the A B A B schedule) and the reports
(:mod:`~confmig.bench.summary`, :mod:`~confmig.bench.report_html`, JSON via
:meth:`BenchReport.to_json`).
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from confmig.bench.options import BenchOptions, BenchUsageError
from confmig.bench.runner import BenchError, BenchReport, run_bench
from confmig.fs import WriteRefused, atomic_write


def write_json(report: BenchReport, path: Path) -> None:
    """``--json FILE``: the whole report, every raw run included (written atomically,
    replacing an earlier report)."""
    atomic_write(path, json.dumps(report.to_json(), indent=2) + "\n", force=True)


def bench(options: BenchOptions, console: Console) -> BenchReport:
    """Run the benchmark with a live display on *console*, then write ``--json`` /
    ``--html`` when asked. Raises :class:`BenchUsageError` / :class:`BenchError`."""
    from confmig.bench.report_html import write_html
    from confmig.bench.ui import RichUI

    report = run_bench(options, RichUI(console))
    try:
        if options.json_path is not None:
            write_json(report, options.json_path)
        if options.html_path is not None:
            write_html(report, options.html_path)
    except WriteRefused as exc:  # checked before the run; the disk can still fill up
        raise BenchError(str(exc)) from exc
    return report


__all__ = [
    "BenchError",
    "BenchOptions",
    "BenchReport",
    "BenchUsageError",
    "bench",
    "run_bench",
    "write_json",
]
