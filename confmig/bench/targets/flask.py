"""The Flask targets: the module ``confmig convert --to flask`` writes for the site, under a real
WSGI server with the printed ``--wsgi-workers`` / ``--wsgi-threads``:

* ``flask-gunicorn`` — gunicorn (:class:`confmig.servers.gunicorn.GunicornServer`): sync
  workers, gthread with more than one thread;
* ``flask-mod_wsgi`` — Apache's mod_wsgi in daemon mode (Debian's ``libapache2-mod-wsgi-py3``),
  ``AllowOverride None``, as ``confmig verify --to flask --server mod_wsgi`` runs it;
* ``flask-waitress`` — waitress (:class:`confmig.bench.targets.waitress.WaitressServer`; the
  ``bench`` extra), one process with ``--wsgi-threads`` threads.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from confmig.bench.targets.base import Target, TargetUnavailable
from confmig.servers import (
    ApacheServer,
    ManagedServer,
    ServerNotFound,
    default_modules,
    find_apache,
)
from confmig.verify.compare import FieldDiff, Observed


class FlaskTarget(Target):
    """What the Flask targets share: the conversion and verify's comparison for Flask."""

    uses_wsgi = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.module_text: str | None = None

    @property
    def label(self) -> str:  # type: ignore[override]
        return f"{self.name} ({self.ctx.wsgi_workers}w×{self.ctx.wsgi_threads}t)"

    @staticmethod
    def differences(original: Observed, converted: Observed) -> list[FieldDiff]:
        from confmig.verify.flask import flask_differences

        return flask_differences(original, converted)

    def prepare(self) -> None:
        try:
            from confmig.convert.flask import convert_docroot
            from confmig.convert.result import ConvertError
        except ImportError as exc:  # pragma: no cover - part of confmig
            raise TargetUnavailable("confmig convert --to flask is not available") from exc
        try:
            conversion = convert_docroot(self.ctx.docroot)
        except ConvertError as exc:
            raise TargetUnavailable(f"confmig convert --to flask failed: {exc}") from exc
        self.module_text = conversion.result.text
        (self.ctx.workdir / "flask_site.py").write_text(self.module_text)
        self.prepared.notes = [str(note) for note in conversion.result.notes]
        self.prepared.details["untranslatable"] = len(conversion.result.untranslatable)
        self.prepared.details.update(module_lines=self.module_text.count("\n"),
                                     workers=self.ctx.wsgi_workers,
                                     threads=self.ctx.wsgi_threads)

    def _module(self) -> str:
        if self.module_text is None:
            self.prepare()
        return self.module_text or ""


class FlaskGunicornTarget(FlaskTarget):
    """gunicorn serving the generated Flask app (sync workers; gthread with threads > 1)."""

    name = "flask-gunicorn"
    description = "the confmig convert --to flask app under gunicorn"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        from confmig.servers.gunicorn import find_gunicorn

        try:
            find_gunicorn()
        except ServerNotFound as exc:
            return str(exc)
        return None

    def make_server(self) -> ManagedServer:
        from confmig.servers.gunicorn import GunicornServer

        return GunicornServer(self._module(), self.ctx.docroot,
                              workers=self.ctx.wsgi_workers, threads=self.ctx.wsgi_threads,
                              cpus=self.ctx.cpus)


class FlaskModWsgiTarget(FlaskTarget):
    """Apache (the group's MPM, ``AllowOverride None``) handing every URL to the generated app
    in a mod_wsgi daemon process group of ``--wsgi-workers`` processes × ``--wsgi-threads``
    threads."""

    name = "flask-mod_wsgi"
    description = "the confmig convert --to flask app under Apache's mod_wsgi (daemon mode)"
    uses_mpm = True

    @property
    def label(self) -> str:  # type: ignore[override]
        return (f"{self.name} ({self.ctx.mpm}, {self.ctx.wsgi_workers}w×"
                f"{self.ctx.wsgi_threads}t)")

    @classmethod
    def unavailable_reason(cls) -> str | None:
        try:
            binary = find_apache()
        except ServerNotFound as exc:
            return str(exc)
        if importlib.util.find_spec("flask") is None:
            return "flask is needed: pip install 'confmig[flask]'"
        if not (Path(binary.modules_dir) / "mod_wsgi.so").is_file():
            return ("mod_wsgi is not installed (apt-get install -y libapache2-mod-wsgi-py3)")
        return None

    def make_server(self) -> ManagedServer:
        from confmig.servers.gunicorn import MODULE_NAME
        from confmig.verify.flask import mod_wsgi_config

        app_dir = self.ctx.workdir / f"wsgi-{self.ctx.mpm}"
        app_dir.mkdir(exist_ok=True)
        app_dir.chmod(0o755)
        # .wsgi, not .py: Apache would type a .py response text/x-python (verify's reason)
        module = app_dir / f"{MODULE_NAME}.wsgi"
        module.write_text(self._module())
        module.chmod(0o644)
        config = mod_wsgi_config(app_dir, module, processes=self.ctx.wsgi_workers,
                                 threads=self.ctx.wsgi_threads)
        binary = find_apache()
        return ApacheServer(self.ctx.docroot, allow_override="None", mpm=self.ctx.mpm,
                            extra_config=config, binary=binary, cpus=self.ctx.cpus,
                            modules=[*default_modules(binary, self.ctx.mpm), "wsgi"])


class FlaskWaitressTarget(FlaskTarget):
    """waitress serving the generated Flask app: one process, ``--wsgi-threads`` threads
    (waitress has no worker processes: ``--wsgi-workers`` does not apply and is shown as 1)."""

    name = "flask-waitress"
    description = "the confmig convert --to flask app under waitress (one process, threads)"

    @property
    def label(self) -> str:  # type: ignore[override]
        return f"{self.name} (1p×{self.ctx.wsgi_threads}t)"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        from confmig.bench.targets.waitress import find_waitress

        try:
            find_waitress()
        except ServerNotFound as exc:
            return str(exc)
        return None

    def prepare(self) -> None:
        super().prepare()
        self.prepared.details["workers"] = 1

    def make_server(self) -> ManagedServer:
        from confmig.bench.targets.waitress import WaitressServer

        return WaitressServer(self._module(), self.ctx.docroot,
                              threads=self.ctx.wsgi_threads, cpus=self.ctx.cpus)
