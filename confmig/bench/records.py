"""What a benchmark run records: the matrix point of each run, every raw run, each target's
verification and syscall count, and the summaries computed from the runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from confmig.bench.check import CheckResult
from confmig.bench.clients import LoadResult
from confmig.bench.stats import Spread, ratio_spread, spread
from confmig.bench.syscalls import SyscallSummary

#: The latencies summarized per target and condition (milliseconds; each a median over runs).
LATENCY_KEYS = ("mean", "p50", "p90", "p99")


@dataclass(frozen=True)
class Condition:
    """One point of the measurement matrix: everything but the target and the repetition."""

    depth: int | None  # None: an existing --site
    mpm: str
    keepalive: bool
    concurrency: int
    urls: str
    size: str

    @property
    def label(self) -> str:
        depth = "site" if self.depth is None else f"depth {self.depth}"
        ka = "keep-alive" if self.keepalive else "no keep-alive"
        return f"{depth}, {self.mpm}, c={self.concurrency}, {ka}, {self.urls}"

    def to_json(self) -> dict[str, Any]:
        return {"depth": self.depth, "mpm": self.mpm, "keepalive": self.keepalive,
                "concurrency": self.concurrency, "urls": self.urls, "size": self.size}


@dataclass
class RunRecord:
    """One measured run of one target (or the client ceiling)."""

    seq: int
    condition: Condition
    target: str
    label: str
    rep: int
    started: str
    result: LoadResult | None = None
    error: str | None = None
    client_bound: bool = False
    kind: str = "measure"  # measure | ceiling

    @property
    def rps(self) -> float:
        return self.result.rps if self.result is not None else 0.0

    @property
    def valid(self) -> bool:
        return self.result is not None and self.error is None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seq": self.seq, "kind": self.kind, **self.condition.to_json(),
                                "target": self.target, "label": self.label, "rep": self.rep,
                                "started": self.started, "client_bound": self.client_bound,
                                "error": self.error}
        if self.result is not None:
            data.update(self.result.to_json())
        return data


@dataclass
class TargetRecord:
    """One target in one (depth, MPM) group: did it start, was it verified, what strace saw."""

    name: str
    label: str
    description: str
    started: bool = False
    check: CheckResult | None = None
    syscalls: SyscallSummary | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return self.started and self.check is not None and self.check.ok

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "label": self.label, "description": self.description,
            "started": self.started, "verified": self.verified,
            "check": self.check.to_json() if self.check is not None else None,
            "syscalls": self.syscalls.to_json() if self.syscalls is not None else None,
            "error": self.error, "notes": self.notes, "details": self.details,
        }


@dataclass
class Group:
    """The targets started together on one tree with one MPM."""

    depth: int | None
    mpm: str
    site: dict[str, Any]
    urls: list[str]
    targets: list[TargetRecord] = field(default_factory=list)

    def target(self, name: str) -> TargetRecord | None:
        return next((t for t in self.targets if t.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {"depth": self.depth, "mpm": self.mpm, "site": self.site,
                "url_count": len(self.urls), "urls": self.urls[:50],
                "targets": [t.to_json() for t in self.targets]}


@dataclass
class Summary:
    """One target at one condition, over its repetitions."""

    condition: Condition
    target: str
    label: str
    runs: int
    rps: Spread | None
    latency_ms: dict[str, Spread]
    ratio: Spread | None
    client_bound: bool
    errors: int
    failed_runs: int
    #: Bytes the client received per request (status line, headers and body), median.
    bytes_per_request: float = 0.0
    #: Throughput in MB/s over the runs (``--size large``'s figure).
    mb_per_s: Spread | None = None
    #: The client's failed requests by kind (``connect``, ``read``, ``write``, ``status``:
    #: an answer outside 2xx/3xx, ``timeout``), summed over the runs.
    error_kinds: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.condition.to_json(), "target": self.target, "label": self.label,
            "runs": self.runs, "failed_runs": self.failed_runs,
            "rps": self.rps.to_json() if self.rps else None,
            "latency_ms": {k: v.to_json() for k, v in self.latency_ms.items()},
            "ratio_to_baseline": self.ratio.to_json() if self.ratio else None,
            "client_bound": self.client_bound, "errors": self.errors,
            "bytes_per_request": round(self.bytes_per_request, 1),
            "mb_per_s": self.mb_per_s.to_json() if self.mb_per_s else None,
            "error_kinds": dict(self.error_kinds),
        }


def summarize_runs(runs: list[RunRecord], baseline: str) -> list[Summary]:
    """Summaries per (condition, target) in first-run order; ratios pair run i of a target
    with run i of the baseline at the same condition."""
    groups: dict[tuple[Condition, str], list[RunRecord]] = {}
    for run in runs:
        if run.kind == "measure":
            groups.setdefault((run.condition, run.target), []).append(run)
    summaries = []
    for (condition, target), records in groups.items():
        valid = [r for r in records if r.valid]
        by_rep = {r.rep: r.rps for r in valid}
        base = {r.rep: r.rps for r in groups.get((condition, baseline), []) if r.valid}
        reps = sorted(set(by_rep) & set(base))
        ratio = None
        if target != baseline and reps:
            ratio = ratio_spread([by_rep[i] for i in reps], [base[i] for i in reps])
        latency = {}
        for key in LATENCY_KEYS:  # (a large-file run may have completed no request)
            values = [r.result.latency_ms[key] for r in valid
                      if r.result and r.result.requests and key in r.result.latency_ms]
            if values:
                latency[key] = spread(values)
        sizes = [r.result.bytes / r.result.requests for r in valid
                 if r.result and r.result.requests and r.result.bytes]
        kinds: dict[str, int] = {}
        for r in valid:
            for kind, count in (r.result.errors if r.result else {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
        throughput = [r.result.mb_per_s for r in valid if r.result and r.result.bytes]
        summaries.append(Summary(
            condition=condition, target=target, label=records[0].label, runs=len(valid),
            rps=spread([r.rps for r in valid]) if valid else None, latency_ms=latency,
            ratio=ratio, client_bound=any(r.client_bound for r in valid),
            errors=sum(r.result.error_count for r in valid if r.result),
            failed_runs=len(records) - len(valid),
            bytes_per_request=spread(sizes).median if sizes else 0.0,
            mb_per_s=spread(throughput) if throughput else None,
            error_kinds=kinds,
        ))
    return summaries
