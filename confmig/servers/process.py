"""Child-process plumbing: spawning in its own process group, CPU pinning, stopping by PID,
and the unprivileged worker identity servers switch to when we run as root."""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Apache refuses `User root` (unless built with -DBIG_SECURITY_HOLE), so as root both servers
# drop their workers to the first of these that exists.
_WORKER_USERS = ("www-data", "apache", "nginx", "nobody")


@dataclass(frozen=True)
class WorkerIdentity:
    user: str
    group: str
    uid: int
    gid: int


def worker_identity() -> WorkerIdentity | None:
    """The user/group server workers run as when we are root; None when we are not root
    (then the servers cannot switch user and simply run as us)."""
    if os.geteuid() != 0:
        return None
    for name in _WORKER_USERS:
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        try:
            group = grp.getgrgid(pw.pw_gid).gr_name
        except KeyError:
            group = f"#{pw.pw_gid}"
        return WorkerIdentity(pw.pw_name, group, pw.pw_uid, pw.pw_gid)
    raise RuntimeError(f"running as root but none of the users {_WORKER_USERS} exists")


def worker_can_read(path: str | os.PathLike[str]) -> bool:
    """Can the worker user list and traverse directory *path*? (Always True when not root.)"""
    ident = worker_identity()
    if ident is None:
        return True
    check = subprocess.run(
        ["/bin/sh", "-c", 'test -r "$1" && test -x "$1"', "sh", os.fspath(path)],
        user=ident.uid, group=ident.gid, extra_groups=[], check=False, timeout=10,
    )
    return check.returncode == 0


def make_docroot(prefix: str = "confmig-www-", parent: str | os.PathLike[str] | None = None,
                 files: Mapping[str, str | bytes] | None = None) -> Path:
    """Create a temp directory the server workers can read (mode 0755) and fill it.

    ``tempfile.mkdtemp`` and pytest's ``tmp_path`` are 0700 below /tmp/pytest-of-root, which a
    ``www-data`` worker cannot enter (Apache answers 403, AH00529). *files* maps relative paths
    to contents; parent directories are created as needed. The caller removes the directory.
    """
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    root.chmod(0o755)
    for rel, content in (files or {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return root


def pin_to(cpus: Iterable[int] | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that pins the child (and everything it forks) to *cpus*, or None."""
    if cpus is None:
        return None
    wanted = frozenset(cpus)
    allowed = os.sched_getaffinity(0)
    if not wanted or not wanted <= allowed:
        raise ValueError(f"cpus {sorted(wanted)} not within the allowed set {sorted(allowed)}")

    def _pin() -> None:
        os.sched_setaffinity(0, wanted)

    return _pin


class ManagedProcess:
    """A server started in the foreground as our direct child, in a new process group.

    Owning the PID (no daemonising, no pid-file lookups) lets us stop exactly what we started;
    the private process group lets us reap workers the master leaves behind.
    """

    def __init__(self, argv: Sequence[str], *, cwd: Path, log_path: Path,
                 cpus: Iterable[int] | None = None, env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.log_path = log_path
        full_env = {**os.environ, **env} if env else None
        with open(log_path, "ab") as log:
            self._proc = subprocess.Popen(
                self.argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                env=full_env, start_new_session=True, preexec_fn=pin_to(cpus),
            )
        self.pid = self._proc.pid
        self._stopped = False

    def alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def output(self) -> str:
        """Whatever the process wrote to stdout/stderr (startup errors end up here)."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self, timeout: float = 10.0, sig: int = signal.SIGTERM) -> int:
        """Send *sig*, wait up to *timeout*, then SIGKILL the whole group; return the exit code.

        The master is waited for with ``WNOWAIT`` so its PID (= our process-group id) stays
        reserved until leftover group members have been killed; only then is it reaped.
        """
        if self._stopped:
            return self._proc.returncode if self._proc.returncode is not None else -9
        self._stopped = True
        if self._proc.returncode is None:
            _signal(self.pid, sig)
            if not self._wait_exited(timeout):
                _signal(self.pid, signal.SIGKILL)
                self._wait_exited(5.0)
        _killpg(self.pid)
        try:
            return self._proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - only if SIGKILL itself failed
            return -9

    def _wait_exited(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            try:
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # already reaped by Popen
                return True
            if info is not None:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _killpg(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
