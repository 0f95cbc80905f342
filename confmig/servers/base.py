"""Lifecycle shared by the Apache and nginx wrappers: temp dir, config test, start, stop."""

from __future__ import annotations

import abc
import os
import shutil
import subprocess
import tempfile
import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, Self

from confmig.servers.errors import ServerConfigError, ServerStartError
from confmig.servers.net import LOOPBACK, free_port, wait_for_port
from confmig.servers.process import ManagedProcess, worker_can_read, worker_identity

_BIND_RETRIES = 3  # free_port() is racy; retry with a fresh port when bind() loses the race


class ConfigTestResult(NamedTuple):
    """Outcome of ``apache2 -t`` / ``nginx -t``; unpacks as ``ok, message``."""

    ok: bool
    message: str


class ManagedServer(abc.ABC):
    """Base class: subclasses write their config files and name their command lines."""

    kind: str = "server"

    def __init__(
        self,
        *,
        docroot: str | os.PathLike[str] | None,
        port: int | None,
        cpus: Iterable[int] | None,
        env: Mapping[str, str] | None,
        start_timeout: float,
        stop_timeout: float,
        check_docroot: bool,
        keep_dir: bool,
    ) -> None:
        self.docroot = Path(docroot).resolve() if docroot is not None else None
        self.cpus = frozenset(cpus) if cpus is not None else None
        self.env = dict(env or {})
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.check_docroot = check_docroot
        self.keep_dir = keep_dir
        self._fixed_port = port
        self._port: int | None = None
        self._root: Path | None = None
        self._conf: Path | None = None
        self._proc: ManagedProcess | None = None
        self._procs: list[ManagedProcess] = []
        self._finalizer: weakref.finalize | None = None
        self._final_logs: dict[str, str] = {}

    # -- subclass hooks ---------------------------------------------------------------------

    @abc.abstractmethod
    def _write_config(self, root: Path, port: int, appended: str = "") -> Path:
        """Write every config file below *root*; return the main config path."""

    @abc.abstractmethod
    def _test_argv(self, conf: Path) -> list[str]: ...

    @abc.abstractmethod
    def _run_argv(self, conf: Path) -> list[str]: ...

    @abc.abstractmethod
    def _pid_file(self, root: Path) -> Path:
        """Where the master writes its PID; both servers do so only after binding."""

    @abc.abstractmethod
    def _log_files(self, root: Path) -> dict[str, Path]:
        """Named log files, at least ``"error"``."""

    # -- public API -------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.alive()

    @property
    def port(self) -> int:
        return self._require("_port")

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def pid(self) -> int:
        return self._require("_proc").pid

    @property
    def root(self) -> Path:
        """The private temp dir (config, logs, pid file, runtime files)."""
        return self._require("_root")

    @property
    def conf_path(self) -> Path:
        return self._require("_conf")

    def config_text(self) -> str:
        return self.conf_path.read_text()

    def error_log_text(self) -> str:
        """The server's error log (still available after :meth:`stop`)."""
        return self._log_text("error")

    def config_test(self, text: str | None = None) -> ConfigTestResult:
        """Run the server's syntax check on this configuration, plus *text* if given (Apache:
        server context after ``extra_config``; nginx: end of the ``server {}`` block). Needs
        no running server; uses its own throwaway directory."""
        root = self._make_root()
        try:
            conf = self._write_config(root, self._port or free_port(), text or "")
            return self._run_test(conf, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def start(self) -> Self:
        """Check the config, start the server and wait until its port accepts connections.

        Raises :class:`ServerConfigError` if the syntax check fails and
        :class:`ServerStartError` if the server exits or does not listen in time.
        """
        if self._proc is not None:
            raise RuntimeError(f"{self.kind} server already started")
        self._check_docroot()
        self._final_logs = {}
        self._root = root = self._make_root()
        # The finalizer must not reference self; it shares the list that _start_in appends to.
        self._procs = []
        self._finalizer = weakref.finalize(self, _cleanup, self._procs, root, self.keep_dir)
        try:
            self._start_in(root)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL to its process group) and remove the temp
        dir. Safe to call twice."""
        if self._proc is not None:
            self._proc.stop(self.stop_timeout)
        if self._root is not None:
            self._final_logs = {name: _read(path)
                                for name, path in self._log_files(self._root).items()}
        if self._finalizer is not None:
            self._finalizer()
        self._proc = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- internals --------------------------------------------------------------------------

    def _start_in(self, root: Path) -> None:
        attempts = 1 if self._fixed_port else _BIND_RETRIES
        for attempt in range(attempts):
            self._port = port = self._fixed_port or free_port()
            self._conf = conf = self._write_config(root, port)
            if attempt == 0:
                ok, message = self._run_test(conf, root)
                if not ok:
                    raise ServerConfigError(
                        f"{self.kind} rejected the configuration:\n{message}",
                        output=message, config_text=conf.read_text(),
                    )
            self._proc = proc = ManagedProcess(
                self._run_argv(conf), cwd=root, log_path=root / "logs" / "stderr.log",
                cpus=self.cpus, env=self.env,
            )
            self._procs.append(proc)
            if self._wait_ready(proc, root, port):
                return
            proc.stop(self.stop_timeout)
            output = "\n".join(filter(None, (proc.output().strip(), self.error_log_text())))
            if "Address already in use" in output and attempt + 1 < attempts:
                continue
            if proc.returncode is not None:
                what = f"exited with status {proc.returncode}"
            else:
                what = f"did not listen on {LOOPBACK}:{port} within {self.start_timeout}s"
            raise ServerStartError(f"{self.kind} {what}:\n{output}", output=output)

    def _wait_ready(self, proc: ManagedProcess, root: Path, port: int) -> bool:
        # A bare connect() could reach whoever else holds the port; the pid file proves that
        # *our* master got past bind() (it is written afterwards); the connect that it serves.
        pid_file = self._pid_file(root)

        def ours() -> bool:
            return _read(pid_file).strip() == str(proc.pid)

        return wait_for_port(LOOPBACK, port, self.start_timeout,
                             still_alive=proc.alive, precondition=ours)

    def _run_test(self, conf: Path, root: Path) -> ConfigTestResult:
        proc = subprocess.run(
            self._test_argv(conf), cwd=root, capture_output=True, text=True,
            env={**os.environ, **self.env}, timeout=60, check=False,
        )
        message = "\n".join(filter(None, (proc.stdout.strip(), proc.stderr.strip())))
        return ConfigTestResult(proc.returncode == 0, message)

    def _make_root(self) -> Path:
        root = Path(tempfile.mkdtemp(prefix=f"confmig-{self.kind}-"))
        # As root the workers run as www-data and must reach runtime files (mutexes, temp dirs).
        root.chmod(0o755)
        for sub in ("logs", "run", "tmp"):
            (root / sub).mkdir()
        ident = worker_identity()
        if ident is not None:
            for sub in ("run", "tmp"):
                os.chown(root / sub, ident.uid, ident.gid)
        return root

    def _check_docroot(self) -> None:
        if self.docroot is None or not self.check_docroot:
            return
        if not self.docroot.is_dir():
            raise ServerConfigError(f"docroot {self.docroot} is not a directory")
        if not worker_can_read(self.docroot):
            ident = worker_identity()
            raise ServerConfigError(
                f"docroot {self.docroot} is not readable by the worker user "
                f"{ident.user if ident else '?'}: every parent directory needs o+x and the "
                "docroot o+rx (pytest's tmp_path is 0700; use confmig.servers.make_docroot())"
            )

    def _log_text(self, name: str) -> str:
        if self._root is not None and self._root.exists():
            return _read(self._log_files(self._root)[name])
        return self._final_logs.get(name, "")

    def _require(self, attr: str) -> Any:
        value = getattr(self, attr)
        if value is None:
            raise RuntimeError(f"{self.kind} server not started")
        return value


def write_file(path: Path, text: str) -> Path:
    """Write a config file (newline-terminated, so an included last line is complete); text
    decoded with ``surrogateescape`` goes back to its original bytes."""
    data = text if text.endswith("\n") else text + "\n"
    path.write_bytes(data.encode("utf-8", errors="surrogateescape"))
    return path


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


def _cleanup(procs: list[ManagedProcess], root: Path, keep: bool) -> None:
    """Finalizer: also runs at interpreter exit (or garbage collection) for servers that were
    never stopped, so no Apache outlives the Python process that started it."""
    for proc in procs:
        proc.stop(timeout=5.0)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
