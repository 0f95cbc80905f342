"""The Flask target: the module ``confmig convert --to flask`` writes for the site, under a
real gunicorn (:class:`confmig.servers.gunicorn.GunicornServer`) with the printed
``--wsgi-workers`` / ``--wsgi-threads``."""

from __future__ import annotations

from typing import Any

from confmig.bench.targets.base import Target, TargetUnavailable
from confmig.servers import ManagedServer, ServerNotFound
from confmig.verify.compare import FieldDiff, Observed


class FlaskGunicornTarget(Target):
    """gunicorn serving the generated Flask app (sync workers; gthread with threads > 1)."""

    name = "flask-gunicorn"
    description = "the confmig convert --to flask app under gunicorn"
    uses_wsgi = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.module_text: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name} ({self.ctx.wsgi_workers}w×{self.ctx.wsgi_threads}t)"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        from confmig.servers.gunicorn import find_gunicorn

        try:
            find_gunicorn()
        except ServerNotFound as exc:
            return str(exc)
        return None

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

    def make_server(self) -> ManagedServer:
        from confmig.servers.gunicorn import GunicornServer

        if self.module_text is None:
            self.prepare()
        return GunicornServer(self.module_text or "", self.ctx.docroot,
                              workers=self.ctx.wsgi_workers, threads=self.ctx.wsgi_threads,
                              cpus=self.ctx.cpus)
