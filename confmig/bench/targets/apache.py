"""The Apache targets: the ``.htaccess`` tree as it is (the baseline) and confmig's
``convert --to httpd`` output with ``AllowOverride None``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from confmig.bench.targets.base import Target, TargetContext, TargetUnavailable
from confmig.servers import ApacheServer, ManagedServer, ServerNotFound, find_apache

if TYPE_CHECKING:
    from confmig.convert.result import ConversionResult


def _apache_missing() -> str | None:
    try:
        find_apache()
    except ServerNotFound as exc:
        return str(exc)
    return None


class ApacheHtaccessTarget(Target):
    """Apache with ``AllowOverride All``: every request walks the tree looking for .htaccess."""

    name = "apache-htaccess"
    description = "Apache, AllowOverride All and the .htaccess files (baseline)"
    uses_mpm = True
    reads_htaccess = True

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return _apache_missing()

    def make_server(self) -> ManagedServer:
        return ApacheServer(self.ctx.docroot, allow_override="All", mpm=self.ctx.mpm,
                            cpus=self.ctx.cpus)


class ApacheHttpdTarget(Target):
    """Apache with ``AllowOverride None`` and the ``.htaccess`` content folded into
    ``<Directory>`` blocks by ``confmig convert --to httpd``."""

    name = "apache-httpd"
    description = "Apache, AllowOverride None and confmig convert --to httpd"
    uses_mpm = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fragment: str | None = None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return _apache_missing()

    def prepare(self) -> None:
        result = convert_to_httpd(self.ctx)
        self.fragment = result.text
        (self.ctx.workdir / f"httpd-fragment-{self.ctx.mpm}.conf").write_text(result.text)
        self.prepared.notes = [str(note) for note in result.notes]
        self.prepared.details["fragment_lines"] = result.text.count("\n")

    def make_server(self) -> ManagedServer:
        if self.fragment is None:
            self.prepare()
        return ApacheServer(self.ctx.docroot, allow_override="None", mpm=self.ctx.mpm,
                            extra_config=self.fragment or "", cpus=self.ctx.cpus)


def convert_to_httpd(ctx: TargetContext) -> ConversionResult:
    """Run confmig's ``.htaccess`` → ``<Directory>`` conversion on the target's docroot.

    The seam to :mod:`confmig.convert`: returns its ``ConversionResult`` (``.text`` is the
    fragment, ``.notes`` what the converter had to say). Raises :class:`TargetUnavailable` when
    this build has no converter.
    """
    try:
        from confmig.convert import ConvertError, convert_docroot
    except ImportError as exc:
        raise TargetUnavailable(
            "confmig convert --to httpd is not available in this build, so the apache-httpd "
            "target cannot be generated") from exc
    try:
        return convert_docroot(ctx.docroot)
    except ConvertError as exc:
        raise TargetUnavailable(f"confmig convert --to httpd failed: {exc}") from exc
