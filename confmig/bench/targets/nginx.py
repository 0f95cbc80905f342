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
