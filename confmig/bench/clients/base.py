"""What every load generator takes and returns, and how it is run as a pinned child process."""

from __future__ import annotations

import abc
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from confmig.servers import pin_to
from confmig.servers.net import LOOPBACK

# A run that has not finished this long after its nominal end is killed and reported as failed.
GRACE_S = 30.0
# With --requests there is no nominal duration; no single run may take longer than this.
REQUESTS_TIME_CAP_S = 300.0

Tick = Callable[[float], None]


class ClientError(RuntimeError):
    """The load generator failed or printed something we could not read."""


@dataclass(frozen=True)
class LoadSpec:
    """One measurement: which URLs, how many connections, for how long (or how many)."""

    base_url: str
    paths: tuple[str, ...]
    concurrency: int
    keepalive: bool = True
    duration_s: float | None = 3.0
    requests: int | None = None
    cpus: frozenset[int] | None = None
    timeout_s: float = 5.0

    def __post_init__(self) -> None:
        host = self.base_url.split("//", 1)[-1].split(":", 1)[0].split("/", 1)[0]
        if host != LOOPBACK:
            raise ValueError(f"the benchmark only sends load to {LOOPBACK}, not {host!r}")
        if not self.paths:
            raise ValueError("LoadSpec needs at least one path")
        if (self.duration_s is None) == (self.requests is None):
            raise ValueError("give exactly one of duration_s and requests")

    @property
    def time_limit_s(self) -> float:
        """Hard wall-clock limit for the run, after which it is killed."""
        nominal = self.duration_s if self.duration_s is not None else REQUESTS_TIME_CAP_S
        return nominal + GRACE_S

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path


@dataclass
class LoadResult:
    """What a client measured. Latencies are milliseconds."""

    requests: int
    duration_s: float
    latency_ms: dict[str, float]
    errors: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def mb_per_s(self) -> float:
        """Throughput: bytes the client received (headers and bodies, a response cut off at
        the end of the run included) per second, in MB (10^6 bytes)."""
        return self.bytes / self.duration_s / 1e6 if self.duration_s > 0 else 0.0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "duration_s": round(self.duration_s, 6),
            "rps": round(self.rps, 2),
            "latency_ms": {k: round(v, 4) for k, v in self.latency_ms.items()},
            "errors": dict(self.errors),
            "bytes": self.bytes,
            "mb_per_s": round(self.mb_per_s, 3),
        }


class LoadClient(abc.ABC):
    """A load generator; subclasses build a command line and read its output."""

    name: ClassVar[str]
    # Printed with every result: e.g. "the built-in client will be the bottleneck".
    warning: ClassVar[str | None] = None
    multi_url: ClassVar[bool] = True
    #: Can stop after exactly N requests (``--requests``)?
    supports_requests: ClassVar[bool] = True

    @classmethod
    @abc.abstractmethod
    def available(cls) -> bool:
        """Is the tool installed?"""

    @classmethod
    def version(cls) -> str:
        return "unknown"

    @abc.abstractmethod
    def command(self, spec: LoadSpec, workdir: Path) -> list[str]:
        """The argv that performs *spec* (files it needs go into *workdir*)."""

    @abc.abstractmethod
    def parse(self, stdout: str, stderr: str, spec: LoadSpec) -> LoadResult:
        """Read the tool's output."""

    def env(self) -> dict[str, str] | None:
        """Environment for the child (None: ours)."""
        return None

    def run(self, spec: LoadSpec, workdir: Path, on_tick: Tick | None = None) -> LoadResult:
        """Run one measurement pinned to ``spec.cpus``; *on_tick* gets the seconds elapsed."""
        argv = self.command(spec, workdir)
        stdout, stderr, code = run_pinned(argv, spec.cpus, spec.time_limit_s, workdir, on_tick,
                                          env=self.env())
        if code != 0:
            detail = (stderr.strip() or stdout.strip())[-800:]
            raise ClientError(f"{self.name} exited with status {code}: {detail}")
        return self.parse(stdout, stderr, spec)


def run_pinned(argv: Sequence[str], cpus: frozenset[int] | None, limit_s: float, cwd: Path,
               on_tick: Tick | None = None, env: dict[str, str] | None = None
               ) -> tuple[str, str, int]:
    """Run *argv* on *cpus*, polling so that progress can be shown; kill it by PID on timeout
    or Ctrl-C (it runs in its own process group, so nothing it started survives)."""
    out_path, err_path = cwd / "client.out", cwd / "client.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, preexec_fn=pin_to(cpus), start_new_session=True,
                                env=env)
        started = time.monotonic()
        try:
            while proc.poll() is None:
                elapsed = time.monotonic() - started
                if elapsed > limit_s:
                    _kill_group(proc)
                    raise ClientError(f"{Path(argv[0]).name} did not finish within {limit_s:g}s")
                if on_tick is not None:
                    on_tick(elapsed)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.1)
        except BaseException:
            _kill_group(proc)
            raise
    stdout = out_path.read_text(errors="replace")
    stderr = err_path.read_text(errors="replace")
    return stdout, stderr, proc.returncode


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
