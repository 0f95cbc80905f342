"""Run the benchmark: build or scan the site, start the targets, verify them, count their
syscalls, then measure them in alternation (A B A B …) and summarize.

Every server is started inside one :class:`contextlib.ExitStack`, so leaving :func:`run_bench`
for any reason — the end, an error, Ctrl-C or SIGTERM — stops each of them by its PID.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import platform
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from confmig import __version__
from confmig.bench.check import baseline_problem, checked_paths, compare, fetch_answers
from confmig.bench.clients import ClientError, LoadClient, LoadSpec, choose_client
from confmig.bench.options import ALL_TARGETS, BenchOptions, BenchUsageError
from confmig.bench.pinning import CpuPlan, plan_cpus
from confmig.bench.records import (
    Condition,
    Group,
    RunRecord,
    Summary,
    TargetRecord,
    summarize_runs,
)
from confmig.bench.syscalls import SyscallSummary, strace_missing_reason, trace_requests
from confmig.bench.targets import (
    BASELINE,
    TARGETS,
    CeilingTarget,
    Target,
    TargetContext,
    TargetUnavailable,
)
from confmig.bench.tree import SiteFiles, TreeSpec, generate_tree, scan_site
from confmig.bench.ui import BenchUI, SilentUI
from confmig.bench.urls import select_urls
from confmig.servers import ServerError, ServerNotFound, find_apache, find_nginx

#: A result at or above this share of the client's ceiling is flagged as client-bound.
CLIENT_BOUND_FRACTION = 0.8
#: Above this share of CPU time in use before we start, the machine counts as busy.
BUSY_FRACTION = 0.25
#: Converter notes printed per target (all of them are in the JSON report).
MAX_NOTES_SHOWN = 5
#: The ceiling run is at most this long (it only needs an order of magnitude).
CEILING_MAX_S = 2.0
#: ``--size large``: how many of the benchmark URLs are compared before measuring (each is a
#: whole media file; the first ones cover every size).
LARGE_CHECKED_URLS = 4


class BenchError(RuntimeError):
    """The benchmark cannot run at all (no Apache, no usable target, …)."""


@dataclass
class BenchReport:
    """Everything one benchmark run produced (``to_json`` is the ``--json`` document)."""

    options: BenchOptions
    meta: dict[str, Any]
    groups: list[Group] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    ceilings: list[RunRecord] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    workdir: str | None = None
    elapsed_s: float = 0.0

    @property
    def failed_targets(self) -> list[TargetRecord]:
        """Targets that were not measured (did not start, or failed verification)."""
        return [t for g in self.groups for t in g.targets if not t.verified]

    @property
    def mismatched_targets(self) -> list[TargetRecord]:
        """Targets that answered differently from the baseline."""
        return [t for g in self.groups for t in g.targets
                if t.check is not None and not t.check.ok]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "confmig-bench/1",
            "meta": self.meta,
            "options": self.options.to_json(),
            "groups": [g.to_json() for g in self.groups],
            "ceilings": [c.to_json() for c in self.ceilings],
            "runs": [r.to_json() for r in self.runs],
            "summaries": [s.to_json() for s in self.summaries],
            "warnings": self.warnings,
            "kept_workdir": self.workdir,
            "elapsed_s": round(self.elapsed_s, 3),
        }


def resolve_targets(names: Sequence[str]) -> list[type[Target]]:
    """Target classes for *names*, the baseline first (added when not named: every ratio and
    every correctness check is relative to it); ``all`` is every registered target."""
    if ALL_TARGETS in names:
        names = list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        raise BenchUsageError(f"unknown target {unknown[0]!r}; choose from {', '.join(TARGETS)}")
    ordered = [BASELINE, *(n for n in names if n != BASELINE)]
    return [TARGETS[n] for n in ordered]


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt, so a killed benchmark cleans up like Ctrl-C."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Runner:
    def __init__(self, options: BenchOptions, ui: BenchUI, client: LoadClient,
                 cpus: CpuPlan, workdir: Path, stack: contextlib.ExitStack) -> None:
        self.options = options
        self.ui = ui
        self.client = client
        self.cpus = cpus
        self.workdir = workdir
        self.stack = stack
        self.seq = 0
        self.ceiling_target: CeilingTarget | None = None
        self.ceiling_failed = False
        self.warnings: list[str] = []
        self.classes = resolve_targets(options.targets)
        self.wsgi_workers = options.wsgi_workers or len(cpus.server or os.sched_getaffinity(0))

    # -- helpers ----------------------------------------------------------------------------

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        self.ui.message(text, "warn")

    def load_spec(self, base_url: str, paths: Sequence[str], cond: Condition,
                  duration_s: float | None, requests: int | None) -> LoadSpec:
        return LoadSpec(base_url=base_url, paths=tuple(paths), concurrency=cond.concurrency,
                        keepalive=cond.keepalive, duration_s=duration_s, requests=requests,
                        cpus=self.cpus.client)

    def measure(self, target: str, label: str, base_url: str, paths: Sequence[str],
                cond: Condition, rep: int, kind: str = "measure",
                duration_s: float | None = None, requests: int | None = None) -> RunRecord:
        if duration_s is None and requests is None:
            duration_s, requests = self.options.duration_s, self.options.requests
        spec = self.load_spec(base_url, paths, cond, duration_s, requests)
        record = RunRecord(self.next_seq(), cond, target, label, rep,
                           dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
                           kind=kind)
        what = {"warmup": "warm-up", "ceiling": "ceiling"}.get(kind, f"rep {rep + 1}")
        tick = self.ui.run_started(f"{label} · {cond.label} · {what}", spec.duration_s)
        rundir = Path(tempfile.mkdtemp(prefix="run-", dir=self.workdir))
        try:
            record.result = self.client.run(spec, rundir, tick)
            if record.result.requests == 0 and (cond.size != "large"
                                                or record.result.bytes == 0):
                # (a large file may take longer than the run: its bytes still count)
                record.error = ("no byte arrived during the run" if cond.size == "large"
                                else "no request completed during the run")
        except ClientError as exc:
            record.error = str(exc)
        finally:
            shutil.rmtree(rundir, ignore_errors=True)
        return record

    # -- the client's ceiling -----------------------------------------------------------------

    def measure_ceiling(self, cond: Condition, paths: Sequence[str],
                        report: BenchReport) -> None:
        """One ceiling run for *cond*'s connections and keep-alive (once per group, so that a
        sample taken while the machine was busy does not stand alone: the best one counts)."""
        if self.ceiling_target is None:
            if self.ceiling_failed:
                return
            ctx = TargetContext(Path("/"), "event", self.cpus.server, self.workdir)
            target = CeilingTarget(ctx)
            self.ui.phase(f"starting {target.label}")
            try:
                target.start()
            except ServerError as exc:
                self.ceiling_failed = True
                self.warn(f"client ceiling not measured: {exc}")
                return
            self.stack.callback(target.stop)
            self.ceiling_target = target
        target = self.ceiling_target
        duration: float | None = min(self.options.duration_s or CEILING_MAX_S, CEILING_MAX_S)
        requests = None
        if self.options.requests is not None:
            duration, requests = None, self.options.requests
        record = self.measure(target.name, target.label, target.base_url, paths, cond, 0,
                              kind="ceiling", duration_s=duration, requests=requests)
        report.ceilings.append(record)

    def ceiling_rps(self, report: BenchReport, keepalive: bool, concurrency: int) -> float:
        """The best ceiling measured so far for these connections (0: none)."""
        return max((c.rps for c in report.ceilings if c.valid
                    and c.condition.keepalive == keepalive
                    and c.condition.concurrency == concurrency), default=0.0)

    # -- one (site, MPM) group --------------------------------------------------------------

    def run_group(self, site: SiteFiles, depth: int | None, mpm: str, paths: list[str],
                  report: BenchReport) -> None:
        group = Group(depth, mpm, site.to_json(), paths)
        report.groups.append(group)
        ctx = TargetContext(site.docroot, mpm, self.cpus.server, self.workdir,
                            self.wsgi_workers, self.options.wsgi_threads,
                            self.options.nginx_config)
        live: list[Target] = []
        with contextlib.ExitStack() as stack:
            for cls in self.classes:
                target = cls(ctx)
                record = TargetRecord(target.name, target.label, target.description)
                group.targets.append(record)
                if self._start(target, record, stack):
                    live.append(target)
                elif target.name == BASELINE:
                    self.warn(f"nothing measured for {mpm}: the baseline did not start")
                    return
            if not site.generated:
                paths = self._servable(live[0], paths)
                group.urls = paths
                if not paths:
                    return
            live = self._verify(live, group, paths)
            if not live:
                return
            self._count_syscalls(live, group, paths)
            self._measure_group(live, group, depth, mpm, paths, report)

    def not_measured(self, record: TargetRecord, why: str) -> None:
        """Record and show why a target is left out (the summary lists these again)."""
        record.error = why
        self.ui.message(f"✗ {record.label}: not measured — {why}", "error")

    def _start(self, target: Target, record: TargetRecord, stack: contextlib.ExitStack) -> bool:
        reason = target.missing()
        if reason is not None:
            self.not_measured(record, reason)
            return False
        self.ui.phase(f"starting {target.label}")
        try:
            target.prepare()
            stack.callback(target.stop)
            target.start()
        except (TargetUnavailable, ServerError, OSError, ValueError) as exc:
            self.not_measured(record, f"{type(exc).__name__}: {exc}")
            return False
        record.started = True
        record.notes = list(target.prepared.notes)
        record.details = dict(target.prepared.details)
        for note in record.notes[:MAX_NOTES_SHOWN]:
            self.warn(f"{target.label}: {note}")
        if len(record.notes) > MAX_NOTES_SHOWN:
            self.warn(f"{target.label}: {len(record.notes) - MAX_NOTES_SHOWN} more notes "
                      "in the JSON report")
        return True

    def _servable(self, baseline: Target, paths: list[str]) -> list[str]:
        """An existing site's files that the baseline serves (2xx): a benchmark of 403s and
        404s would measure error pages. The others are left out, and the user is told."""
        self.ui.phase(f"asking the baseline for the site's {len(paths)} URLs")
        answers = fetch_answers(baseline.base_url, baseline.port, paths)
        kept = [p for p in paths if 200 <= answers[p].status < 300]
        if len(kept) < len(paths):
            left = next(p for p in paths if p not in set(kept))
            self.warn(f"{len(paths) - len(kept)} of the site's {len(paths)} URLs are left out: "
                      f"the baseline does not answer them with 2xx (e.g. {left} → "
                      f"{answers[left].error or answers[left].status})")
        if not kept:
            self.warn("nothing to measure: the baseline answers none of the site's files")
        return kept

    def _verify(self, live: list[Target], group: Group, paths: list[str]) -> list[Target]:
        """Compare every target with the baseline on the benchmark URLs; drop the ones that
        answer differently (a fast wrong server proves nothing)."""
        baseline = live[0]
        large = self.options.size == "large"
        sample = paths[:LARGE_CHECKED_URLS] if large else checked_paths(paths)
        self.ui.phase(f"verifying answers on {len(sample)} URLs")
        want = fetch_answers(baseline.base_url, baseline.port, sample, stream=large)
        problem = baseline_problem(want)
        if problem is not None:
            for target in live:
                record = group.target(target.name)
                assert record is not None
                self.not_measured(record, problem)
            return []
        kept = []
        for target in live:
            record = group.target(target.name)
            assert record is not None
            got = want if target is baseline else fetch_answers(
                target.base_url, target.port, sample, stream=large)
            result = compare(target.name, want, got, target.differences)
            result.seq = self.next_seq()
            record.check = result
            if result.ok:
                kept.append(target)
                self.ui.message(f"✓ {target.label}: verified on {result.checked} URLs", "ok")
            else:
                announced = record.details.get("untranslatable", 0)
                why = "it answers differently from the baseline: " + result.summary()
                if announced:
                    why += (f" (its converter announced {announced} construct(s) it does not "
                            "reproduce: see the notes)")
                self.not_measured(record, why)
                target.stop()
        return kept

    def _count_syscalls(self, live: list[Target], group: Group, paths: list[str]) -> None:
        if not self.options.strace or self.options.size == "large":
            return  # large: see _run_matrix's note
        missing = strace_missing_reason()
        for target in live:
            record = group.target(target.name)
            assert record is not None
            if missing is not None:
                record.syscalls = SyscallSummary(False, missing)
                continue
            self.ui.phase(f"counting syscalls of {target.label} with strace")
            record.syscalls = trace_requests(target.process_ids, target.base_url, paths,
                                             workdir=self.workdir)
        if missing is not None:
            self.warn(missing)
        else:
            reasons = {r.syscalls.reason for r in group.targets
                       if r.syscalls is not None and not r.syscalls.available}
            for reason in sorted(filter(None, reasons)):
                self.warn(f"syscall count: {reason}")

    def _measure_group(self, live: list[Target], group: Group, depth: int | None, mpm: str,
                       paths: list[str], report: BenchReport) -> None:
        options = self.options
        for keepalive in options.keepalive_values:
            for concurrency in options.concurrency:
                cond = Condition(depth, mpm, keepalive, concurrency, options.urls, options.size)
                if options.size != "large":
                    self.measure_ceiling(cond, paths, report)
                if options.warmup_s > 0:
                    for target in live:
                        self.ui.phase(f"warming up {target.label}")
                        report.runs.append(self.measure(
                            target.name, target.label, target.base_url, paths, cond, -1,
                            kind="warmup", duration_s=options.warmup_s))
                for rep in range(options.repeat):
                    for target in live:  # A B A B …: drift hits every target alike
                        record = self.measure(target.name, target.label, target.base_url,
                                              paths, cond, rep)
                        record.client_bound = is_client_bound(
                            record, self.ceiling_rps(report, keepalive, concurrency))
                        report.runs.append(record)
                        report.summaries = summarize_runs(report.runs, BASELINE)
                        self.ui.run_finished(record, report.summaries)


def is_client_bound(record: RunRecord, ceiling_rps: float) -> bool:
    """Did the run reach :data:`CLIENT_BOUND_FRACTION` of what the client can drive?"""
    return bool(record.valid and ceiling_rps > 0
                and record.rps >= CLIENT_BOUND_FRACTION * ceiling_rps)


def reflag_client_bound(runner: _Runner, report: BenchReport) -> None:
    """Judge every run against the best ceiling of the whole benchmark, not the one known
    when it ran, and summarize again."""
    for run in report.runs:
        run.client_bound = is_client_bound(
            run, runner.ceiling_rps(report, run.condition.keepalive, run.condition.concurrency))
    report.summaries = summarize_runs(report.runs, BASELINE)


def busy_note(sample_s: float = 0.5) -> str | None:
    """A warning when other work keeps the cores busy before we start (then it shares the
    measured cores, and timings are noisy). Measured from /proc/stat over *sample_s*, not
    from the load average, which would still count a previous benchmark."""
    busy = cpu_busy_fraction(sample_s)
    if busy is None or busy < BUSY_FRACTION:
        return None
    load = os.getloadavg()[0]
    return (f"the machine is busy: {busy:.0%} of the CPU time was in use before the "
            f"benchmark started (load average {load:.1f} on {os.cpu_count()} cores), so the "
            "timings are noisy; the syscall counts are not affected")


def cpu_busy_fraction(sample_s: float) -> float | None:
    """Share of all CPUs' time not idle during *sample_s* (None where /proc/stat is absent)."""

    def read() -> tuple[int, int] | None:
        try:
            fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        except (OSError, IndexError):
            return None
        values = [int(v) for v in fields]
        idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
        return sum(values), idle

    first = read()
    time.sleep(sample_s)
    second = read()
    if first is None or second is None or second[0] <= first[0]:
        return None
    total, idle = second[0] - first[0], second[1] - first[1]
    return 1.0 - idle / total


def count_runs(options: BenchOptions, n_targets: int) -> int:
    """How many measured runs the matrix has (for the progress bar and the estimate)."""
    return (len(options.depths) * len(options.mpms) * len(options.keepalive_values)
            * len(options.concurrency) * options.repeat * n_targets)


def machine_meta(client: LoadClient, cpus: CpuPlan) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "confmig": __version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": sorted(os.sched_getaffinity(0)),
        "loadavg": list(os.getloadavg()),
        "client": {"name": client.name, "version": client.version(), "warning": client.warning},
        "pinning": cpus.to_json(),
        "client_bound_fraction": CLIENT_BOUND_FRACTION,
    }
    try:
        meta["apache"] = find_apache().version
    except ServerNotFound:
        meta["apache"] = None
    try:
        meta["nginx"] = find_nginx().version
    except ServerNotFound:
        meta["nginx"] = None
    return meta


def run_bench(options: BenchOptions, ui: BenchUI | None = None) -> BenchReport:
    """Run the whole benchmark described by *options*; see ``confmig bench --help``.

    Raises :class:`BenchUsageError` for bad options and :class:`BenchError` when nothing can
    be measured (e.g. Apache is not installed).
    """
    options.validate()
    ui = ui or SilentUI()
    resolve_targets(options.targets)
    try:
        find_apache()
    except ServerNotFound as exc:
        raise BenchError(str(exc)) from exc
    try:
        client = choose_client(options.client, by_requests=options.requests is not None)
    except ClientError as exc:
        raise BenchUsageError(str(exc)) from exc
    cpus = plan_cpus()
    report = BenchReport(options, machine_meta(client, cpus))
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="confmig-bench-"))
    workdir.chmod(0o755)  # the trees live here, and the servers' workers must enter it
    try:
        with sigterm_as_interrupt(), contextlib.ExitStack() as stack:
            runner = _Runner(options, ui, client, cpus, workdir, stack)
            ui.message(cpus.note)
            ui.message(f"load client: {client.name} {client.version()}")
            if any(cls.uses_wsgi for cls in runner.classes):
                source = "--wsgi-workers" if options.wsgi_workers else "one per server core"
                ui.message(f"WSGI servers: {runner.wsgi_workers} worker process(es) ({source}) "
                           f"× {options.wsgi_threads} thread(s) each")
            if BASELINE not in options.targets and ALL_TARGETS not in options.targets:
                runner.warn(f"{BASELINE} added: it is the baseline every check and ratio is "
                            "relative to")
            if client.warning:
                runner.warn(client.warning)
            ui.begin(count_runs(options, len(runner.classes)))
            note = busy_note()
            report.meta["busy_note"] = note
            if note is not None:
                runner.warn(note)
            try:
                _run_matrix(runner, options, report)
            finally:
                ui.end()
            reflag_client_bound(runner, report)
            report.warnings = runner.warnings
    finally:
        report.elapsed_s = time.monotonic() - started
        if options.keep:
            report.workdir = str(workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return report


def _run_matrix(runner: _Runner, options: BenchOptions, report: BenchReport) -> None:
    if options.size == "large" and options.site is None:
        sizes = ", ".join(f"{mb}" for mb in options.large_sizes_mb)
        runner.ui.message(
            f"large files: {sizes} MB (cycled over each level's files; sparse, so they take "
            "no disk and read as zeros from the page cache); throughput in MB/s, failed and "
            f"timed-out requests (the client gives up on a request after "
            f"{LoadSpec.timeout_s:g} s)")
        runner.warn("--size large: no strace counts (the file-system work per request does "
                    "not depend on the file's size: see a --size small run) and no client "
                    "ceiling (it is measured with a small answer)")
    if options.site is not None:
        runner.ui.phase(f"scanning {options.site}")
        site = scan_site(options.site)
        _run_site(runner, options, report, site, None)
        return
    for depth in options.depths:
        runner.ui.phase(f"generating the depth-{depth} tree")
        spec = TreeSpec(depth, options.files, options.htaccess, options.size,
                        options.large_sizes_mb)
        site = generate_tree(spec, parent=runner.workdir)
        _run_site(runner, options, report, site, depth)
        if not options.keep:
            shutil.rmtree(site.docroot, ignore_errors=True)


def _run_site(runner: _Runner, options: BenchOptions, report: BenchReport, site: SiteFiles,
              depth: int | None) -> None:
    try:
        paths = select_urls(site, options.urls, seed=options.seed)
    except ValueError as exc:
        raise BenchError(str(exc)) from exc
    if not runner.client.multi_url and len(paths) > 1:
        runner.warn(f"{runner.client.name} requests only {paths[0]} of the {len(paths)} "
                    "benchmark URLs")
    for mpm in options.mpms:
        runner.run_group(site, depth, mpm, paths, report)
