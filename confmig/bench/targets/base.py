"""A benchmark target: one server configuration serving the site, started and stopped by us.

A target is a small class: a name, a one-line description, and ``make_server()`` returning a
:class:`confmig.servers.ManagedServer` (Apache, nginx, …) that is not started yet. Everything
else — starting, stopping by PID, finding the worker processes for strace — is shared here.
"""

from __future__ import annotations

import abc
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from confmig.servers import ManagedServer, ServerUnderTest
from confmig.verify.compare import FieldDiff, Observed
from confmig.verify.compare import differences as verify_differences


class TargetUnavailable(RuntimeError):
    """The target cannot run here (missing server, converter not available, …)."""


# The bench's targets are servers under test (confmig.servers.ServerUnderTest, as verify's:
# start, stop, base_url, port) plus what measuring needs: an MPM, pinned cores, and the
# server's process ids for strace.


@dataclass(frozen=True)
class TargetContext:
    """What every target is given: the site, the MPM for Apache targets, the server's cores,
    a private scratch directory for generated files, and the WSGI servers' worker and thread
    counts (``--wsgi-workers`` / ``--wsgi-threads``)."""

    docroot: Path
    mpm: str
    cpus: frozenset[int] | None
    workdir: Path
    wsgi_workers: int = 1
    wsgi_threads: int = 1
    #: ``--nginx-config FILE``, for the ``nginx-handwritten`` target.
    nginx_config: Path | None = None


@dataclass
class Prepared:
    """Facts about a target worth reporting (converter notes, config sizes, …)."""

    notes: list[str] = field(default_factory=list)
    details: dict[str, object] = field(default_factory=dict)


class Target(ServerUnderTest):
    """Base class for targets; subclasses set the class attributes and ``make_server``."""

    name: ClassVar[str]
    description: ClassVar[str]
    #: Runs once per ``--mpm`` value (Apache); others still run in every MPM group, so that
    #: each group pairs them with its own baseline.
    uses_mpm: ClassVar[bool] = False
    #: Whether the server reads .htaccess files (then strace's per-request count is expected
    #: to show lookups).
    reads_htaccess: ClassVar[bool] = False
    #: Runs a WSGI server (``--wsgi-workers`` / ``--wsgi-threads`` apply).
    uses_wsgi: ClassVar[bool] = False

    def __init__(self, ctx: TargetContext) -> None:
        self.ctx = ctx
        self.server: ManagedServer | None = None
        self.prepared = Prepared()

    @property  # type: ignore[override]
    def label(self) -> str:
        """``apache-httpd (event)``: the name plus the MPM where it matters."""
        return f"{self.name} ({self.ctx.mpm})" if self.uses_mpm else self.name

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why this target cannot run on this machine, or None."""
        return None

    def missing(self) -> str | None:
        """Why this target cannot run in this benchmark (the machine, or an option it needs
        and was not given), or None."""
        return self.unavailable_reason()

    @staticmethod
    def differences(original: Observed, converted: Observed) -> list[FieldDiff]:
        """How this target's answer is compared with the baseline's: ``confmig verify``'s
        comparison for this kind of server (nginx and Flask override it with verify's
        allowances for what a server writes on its own)."""
        return verify_differences(original, converted)

    def prepare(self) -> None:
        """Generate whatever the server needs (e.g. a converted config); may raise
        :class:`TargetUnavailable`. Called once before :meth:`start`."""
        return None

    @abc.abstractmethod
    def make_server(self) -> ManagedServer:
        """The server for this target, configured but not started."""

    def start(self) -> None:
        self.server = self.make_server()
        self.server.start()

    def stop(self) -> None:
        """Stop the server by its PID (idempotent)."""
        if self.server is not None:
            self.server.stop()

    @property
    def base_url(self) -> str:
        return self._running().base_url

    @property
    def port(self) -> int:
        return self._running().port

    @property
    def pid(self) -> int:
        return self._running().pid

    def diagnostics(self) -> str:
        return self.error_log()[-2000:]

    def process_ids(self) -> list[int]:
        """The server's processes: the master and, in its process group, the children that
        accept connections and answer requests (Apache's children, nginx's workers)."""
        master = self.pid
        return [master, *(pid for pid in process_group(master) if pid != master)]

    def error_log(self) -> str:
        return self.server.error_log_text() if self.server is not None else ""

    def _running(self) -> ManagedServer:
        if self.server is None or not self.server.running:
            raise RuntimeError(f"target {self.name} is not running")
        return self.server


def process_group(pgid: int) -> list[int]:
    """PIDs of the processes whose process group is *pgid* (read from /proc)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name (field 2) may contain spaces and parentheses: split after it.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and int(fields[2]) == pgid:
            pids.append(int(entry))
    return sorted(pids)
