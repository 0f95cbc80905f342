"""A WSGI application under a real gunicorn on 127.0.0.1, run privately from a temp dir.

The application is a Python module file (what ``confmig convert --to flask`` writes); it is
copied into the server's temp dir and served as ``module:app`` by ``python -m gunicorn`` from
the same interpreter as confmig (gunicorn belongs to the ``flask`` extra).  gunicorn writes its
pid file only once it listens, which is what :class:`~confmig.servers.base.ManagedServer`
waits for.  As root the worker runs as ``www-data``, as Apache's and nginx's do, so all three
see the same file permissions — when that user can read the interpreter's files; otherwise
(a Python installed under ``/root``) it runs as we do, and a file only root can read is served
where Apache refuses it.  gunicorn's control socket (in ``$HOME``) is turned off.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from confmig.servers.base import ManagedServer, write_file
from confmig.servers.errors import ServerNotFound
from confmig.servers.net import LOOPBACK
from confmig.servers.process import ManagedProcess, worker_can_read, worker_identity

MODULE_NAME = "confmig_site"


def find_gunicorn() -> str:
    """The Python that runs gunicorn (ours); :class:`ServerNotFound` when it is missing."""
    if importlib.util.find_spec("gunicorn") is None or importlib.util.find_spec("flask") is None:
        raise ServerNotFound("gunicorn and flask are needed: pip install 'confmig[flask]'")
    return sys.executable


def _children(pid: int) -> list[str]:
    """The child processes of *pid* (Linux: /proc/PID/task/*/children)."""
    found: list[str] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += task.read_text().split()
        except OSError:
            continue
    return found


@functools.cache
def _has_option(python: str, option: str) -> bool:
    proc = subprocess.run([python, "-m", "gunicorn", "--help"], capture_output=True,
                          text=True, timeout=60, check=False)
    return option in proc.stdout


@functools.cache
def _worker_can_run(python: str) -> bool:
    """Can the worker user read the interpreter's standard library and gunicorn?"""
    import gunicorn

    return all(worker_can_read(os.path.dirname(path)) for path in
               (os.__file__, gunicorn.__file__))


class GunicornServer(ManagedServer):
    """Run ``gunicorn MODULE:app`` (one sync worker by default) on ``127.0.0.1:<port>``."""

    kind = "gunicorn"

    def __init__(
        self,
        module_text: str,
        docroot: str | os.PathLike[str] | None = None,
        *,
        workers: int = 1,
        threads: int = 1,
        cpus: Iterable[int] | None = None,
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        start_timeout: float = 20.0,
        stop_timeout: float = 10.0,
        keep_dir: bool = False,
        module_name: str = MODULE_NAME,
        modules: Mapping[str, str] | None = None,
    ) -> None:
        """*module_text* is served as ``module_name:app``; *modules* (name → text) are
        written next to it, for a module_text that imports them."""
        super().__init__(docroot=docroot, port=port, cpus=cpus, env=env,
                         start_timeout=start_timeout, stop_timeout=stop_timeout,
                         check_docroot=docroot is not None, keep_dir=keep_dir)
        self.python = find_gunicorn()
        self.module_text = module_text
        self.module_name = module_name
        self.modules = dict(modules or {})
        self.workers = workers
        self.threads = threads

    def _pid_file(self, root: Path) -> Path:
        return root / "run" / "gunicorn.pid"

    def _log_files(self, root: Path) -> dict[str, Path]:
        return {"error": root / "logs" / "error.log"}

    def _write_config(self, root: Path, port: int, appended: str = "") -> Path:
        app_dir = root / "app"
        app_dir.mkdir(exist_ok=True)
        app_dir.chmod(0o755)
        for name, text in self.modules.items():
            write_file(app_dir / f"{name}.py", text).chmod(0o644)
        module = write_file(app_dir / f"{self.module_name}.py", self.module_text + appended)
        module.chmod(0o644)
        self._port_for_argv = port
        return module

    def _argv(self, conf: Path, port: int) -> list[str]:
        root = conf.parent.parent
        argv = [self.python, "-m", "gunicorn", "--chdir", str(conf.parent),
                "--bind", f"{LOOPBACK}:{port}", "--workers", str(self.workers),
                "--threads", str(self.threads), "--pid", str(self._pid_file(root)),
                "--error-logfile", str(root / "logs" / "error.log"),
                "--limit-request-line", "8190", "--worker-tmp-dir", str(root / "tmp")]
        if _has_option(self.python, "--no-control-socket"):
            argv.append("--no-control-socket")
        ident = worker_identity()
        if ident is not None and _worker_can_run(self.python):
            argv += ["--user", str(ident.uid), "--group", str(ident.gid)]
        return [*argv, f"{self.module_name}:app"]

    def _wait_ready(self, proc: ManagedProcess, root: Path, port: int) -> bool:
        """Listening is not serving: gunicorn's master binds (and writes its pid file)
        before it forks the workers.  Ready once every worker asked for is running."""
        if not super()._wait_ready(proc, root, port):
            return False
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline and proc.alive():
            if len(_children(proc.pid)) >= self.workers:
                return True
            time.sleep(0.05)
        return False

    def _test_argv(self, conf: Path) -> list[str]:
        # Importing the module is the configuration test: a syntax error or a bad table shows
        # here, with its traceback, before the server is started.
        return [self.python, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                f"import {self.module_name}", str(conf.parent)]

    def _run_argv(self, conf: Path) -> list[str]:
        return self._argv(conf, self._port_for_argv)
