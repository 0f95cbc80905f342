"""The nginx target: nginx serving what ``confmig convert --to nginx`` writes for the site."""

from __future__ import annotations

from typing import Any

from confmig.bench.targets.base import Target, TargetUnavailable
from confmig.servers import ManagedServer, NginxServer, ServerNotFound, find_nginx
from confmig.verify.compare import FieldDiff, Observed


class NginxTarget(Target):
    """nginx with the converted ``server { }`` body and ``http { }`` maps, one worker per
    server core (the same cores Apache gets)."""

    name = "nginx"
    description = "nginx serving confmig convert --to nginx"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.body: str | None = None
        self.http = ""

    @classmethod
    def unavailable_reason(cls) -> str | None:
        try:
            find_nginx()
        except ServerNotFound as exc:
            return str(exc)
        return None

    @staticmethod
    def differences(original: Observed, converted: Observed) -> list[FieldDiff]:
        # What each server writes on its own (its error pages, ETag, …) is not compared:
        # confmig verify --to nginx's allowances.
        from confmig.verify.nginx import nginx_differences

        return nginx_differences(original, converted)

    def prepare(self) -> None:
        try:
            from confmig.convert.nginx import convert_docroot
            from confmig.convert.result import ConvertError
        except ImportError as exc:  # pragma: no cover - part of confmig
            raise TargetUnavailable("confmig convert --to nginx is not available") from exc
        try:
            conversion = convert_docroot(self.ctx.docroot)
        except ConvertError as exc:
            raise TargetUnavailable(f"confmig convert --to nginx failed: {exc}") from exc
        self.body, self.http = conversion.output.body, conversion.output.http
        (self.ctx.workdir / "nginx-server.conf").write_text(conversion.result.text)
        self.prepared.notes = [str(note) for note in conversion.result.notes]
        self.prepared.details["untranslatable"] = len(conversion.result.untranslatable)
        self.prepared.details["config_lines"] = conversion.result.text.count("\n")
        self.prepared.details["worker_processes"] = self.workers

    @property
    def workers(self) -> int:
        return len(self.ctx.cpus) if self.ctx.cpus else 1

    def make_server(self) -> ManagedServer:
        if self.body is None:
            self.prepare()
        return NginxServer(self.body or "", self.ctx.docroot, http_config=self.http,
                           cpus=self.ctx.cpus, worker_processes=self.workers)


#: What a hand-written configuration must answer like the baseline before it is measured:
#: the same status, redirect target and body (it serves the same files). Its headers are
#: its author's choice — that is what is being compared — so they are not held against it.
HANDWRITTEN_FIELDS = ("error", "status", "location", "body")


class NginxHandwrittenTarget(NginxTarget):
    """nginx with a person's configuration for the site (``--nginx-config FILE``, e.g. h5bp's
    server-configs-nginx), one worker per server core like the ``nginx`` target."""

    name = "nginx-handwritten"
    description = "nginx serving a hand-written configuration (--nginx-config)"

    def missing(self) -> str | None:
        if self.ctx.nginx_config is None:
            return "needs --nginx-config FILE (the hand-written nginx configuration)"
        return self.unavailable_reason()

    @staticmethod
    def differences(original: Observed, converted: Observed) -> list[FieldDiff]:
        from confmig.verify.nginx import nginx_differences

        return [d for d in nginx_differences(original, converted)
                if d.field in HANDWRITTEN_FIELDS]

    def prepare(self) -> None:
        from confmig.bench.nginx_text import NginxTextError, split_handwritten

        path = self.ctx.nginx_config
        if path is None:
            raise TargetUnavailable("needs --nginx-config FILE")
        try:
            split = split_handwritten(path)
        except NginxTextError as exc:
            raise TargetUnavailable(str(exc)) from exc
        self.body, self.http = split.server_body, split.http_config
        (self.ctx.workdir / "nginx-handwritten-server.conf").write_text(self.body)
        (self.ctx.workdir / "nginx-handwritten-http.conf").write_text(self.http)
        self.prepared.notes = list(split.notes)
        self.prepared.details.update(config=str(path), worker_processes=self.workers,
                                     compared=list(HANDWRITTEN_FIELDS))
