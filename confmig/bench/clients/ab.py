"""ApacheBench (ab), used when wrk is missing. It requests a single URL, so with several
benchmark URLs only the first is measured (the runner says so). Its printed percentiles are
whole milliseconds, so they are read from its ``-e`` CSV file, which has fractions."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from confmig.bench.clients.base import ClientError, LoadClient, LoadResult, LoadSpec

# ab -t caps the count at 50000 unless -n comes after it; this is our own upper bound.
_DURATION_REQUEST_CAP = 5_000_000

_FIELDS = {
    "requests": re.compile(r"^Complete requests:\s+(\d+)", re.M),
    "failed": re.compile(r"^Failed requests:\s+(\d+)", re.M),
    "non2xx": re.compile(r"^Non-2xx responses:\s+(\d+)", re.M),
    "time": re.compile(r"^Time taken for tests:\s+([\d.]+) seconds", re.M),
    "bytes": re.compile(r"^Total transferred:\s+(\d+) bytes", re.M),
    "mean": re.compile(r"^Time per request:\s+([\d.]+) \[ms\] \(mean\)", re.M),
}
_PCT = re.compile(r"^\s+(\d+)%\s+(\d+)", re.M)


class AbClient(LoadClient):
    name = "ab"
    multi_url = False  # the runner says which URL stands for all of them

    @classmethod
    def available(cls) -> bool:
        return shutil.which("ab") is not None

    def __init__(self) -> None:
        self.csv_path: Path | None = None

    def command(self, spec: LoadSpec, workdir: Path) -> list[str]:
        self.csv_path = workdir / "ab-percentiles.csv"
        argv = ["ab", "-c", str(spec.concurrency), "-s", f"{max(1, round(spec.timeout_s))}",
                "-e", str(self.csv_path)]
        if spec.keepalive:
            argv.append("-k")
        if spec.duration_s is not None:
            # -t then -n: ab's own 50000 cap for -t is lifted by the later -n.
            argv += ["-t", f"{max(1, round(spec.duration_s))}", "-n", str(_DURATION_REQUEST_CAP)]
        else:
            argv += ["-n", str(max(spec.requests or 1, spec.concurrency))]
        return [*argv, spec.url(spec.paths[0])]

    def parse(self, stdout: str, stderr: str, spec: LoadSpec) -> LoadResult:
        found = {key: rx.search(stdout) for key, rx in _FIELDS.items()}
        if found["requests"] is None or found["time"] is None:
            raise ClientError(f"ab printed no result: {(stderr or stdout).strip()[-500:]}")
        pcts = {int(p): float(ms) for p, ms in _PCT.findall(stdout)}
        pcts.update(self._csv_percentiles())
        latency = {f"p{p}": pcts.get(p, 0.0) for p in (50, 90, 99)}
        if found["mean"] is not None:
            # ab's mean "per request" is across concurrent requests: wall time per request × c.
            latency["mean"] = float(found["mean"].group(1))
        latency["max"] = pcts.get(100, 0.0)
        errors = {}
        for key in ("failed", "non2xx"):
            match = found[key]
            if match is not None and int(match.group(1)):
                errors[key] = int(match.group(1))
        return LoadResult(
            requests=int(found["requests"].group(1)),
            duration_s=float(found["time"].group(1)),
            latency_ms=latency,
            errors=errors,
            bytes=int(found["bytes"].group(1)) if found["bytes"] else 0,
            raw={"tool": "ab"},
        )

    def _csv_percentiles(self) -> dict[int, float]:
        """``Percentage served,Time in ms`` rows: 0..100 with fractional milliseconds."""
        if self.csv_path is None or not self.csv_path.is_file():
            return {}
        found = {}
        for line in self.csv_path.read_text(errors="replace").splitlines()[1:]:
            pct, _, ms = line.partition(",")
            try:
                found[int(pct)] = float(ms)
            except ValueError:
                continue
        return found
