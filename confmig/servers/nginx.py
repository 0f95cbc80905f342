"""A real nginx on 127.0.0.1, configured privately in a temp dir."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from confmig.servers.base import ConfigTestResult, ManagedServer, write_file
from confmig.servers.binaries import NginxBinary, find_nginx
from confmig.servers.net import LOOPBACK
from confmig.servers.process import worker_identity
from confmig.servers.templating import render

_SYSTEM_MIME_TYPES = Path("/etc/nginx/mime.types")


class NginxServer(ManagedServer):
    """Run nginx (``daemon off``, one master + workers) as our child on ``127.0.0.1:<port>``.

    *server_block* is the BODY of the single ``server {}`` block; ``listen``, ``server_name``
    and (when *docroot* is given) ``root`` are supplied, so do not repeat ``listen`` or a
    server-level ``root``. *http_config* is extra text for the ``http {}`` context (``map``,
    ``upstream``, ...), placed before the server. Both are written to their own files and
    included, so nginx's ``file:line`` refers to lines of your text. As root the workers run as
    ``www-data`` like Apache's, so both servers see the same file permissions.
    """

    kind = "nginx"

    def __init__(
        self,
        server_block: str = "",
        docroot: str | os.PathLike[str] | None = None,
        *,
        http_config: str = "",
        log_level: str = "warn",
        access_log: bool = False,
        worker_processes: int | str = 1,
        cpus: Iterable[int] | None = None,
        port: int | None = None,
        binary: NginxBinary | str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        start_timeout: float = 10.0,
        stop_timeout: float = 10.0,
        check_docroot: bool = True,
        keep_dir: bool = False,
    ) -> None:
        super().__init__(docroot=docroot, port=port, cpus=cpus, env=env,
                         start_timeout=start_timeout, stop_timeout=stop_timeout,
                         check_docroot=check_docroot, keep_dir=keep_dir)
        self.binary = binary if isinstance(binary, NginxBinary) else find_nginx(binary)
        self.server_block = server_block
        self.http_config = http_config
        self.log_level = log_level
        self.access_log = access_log
        self.worker_processes = worker_processes

    def access_log_text(self) -> str:
        """The access log (``combined``); empty unless ``access_log=True``."""
        return self._log_text("access")

    def _pid_file(self, root: Path) -> Path:
        return root / "run" / "nginx.pid"

    def _log_files(self, root: Path) -> dict[str, Path]:
        return {"error": root / "logs" / "error.log", "access": root / "logs" / "access.log"}

    def _write_config(self, root: Path, port: int, appended: str = "") -> Path:
        server_includes = [write_file(root / name, text) for name, text in
                           (("server.conf", self.server_block), ("appended.conf", appended))
                           if text]
        http_include = None
        if self.http_config:
            http_include = write_file(root / "http.conf", self.http_config)
        ident = worker_identity()
        text = render(
            "nginx.conf.j2",
            root=str(root), listen=f"{LOOPBACK}:{port}",
            docroot=str(self.docroot) if self.docroot else None,
            worker_processes=self.worker_processes, log_level=self.log_level,
            user=ident.user if ident else None, group=ident.group if ident else None,
            mime_types=str(_SYSTEM_MIME_TYPES) if _SYSTEM_MIME_TYPES.is_file() else None,
            access_log=self.access_log,
            http_include=str(http_include) if http_include else None,
            server_includes=[str(p) for p in server_includes],
        )
        return write_file(root / "nginx.conf", text)

    def _base_argv(self, conf: Path) -> list[str]:
        argv = [str(self.binary.path), "-p", f"{conf.parent}/", "-c", str(conf)]
        if _version_tuple(self.binary.version) >= (1, 19, 5):
            # -e: the log used before nginx.conf is read (Debian's default is stderr, others
            # use /var/log/nginx/error.log which we must not touch).
            argv += ["-e", str(conf.parent / "logs" / "error.log")]
        return argv

    def _test_argv(self, conf: Path) -> list[str]:
        return [*self._base_argv(conf), "-t"]

    def _run_argv(self, conf: Path) -> list[str]:
        return self._base_argv(conf)


def nginx_config_test(server_block: str = "", *, http_config: str = "",
                      binary: NginxBinary | str | os.PathLike[str] | None = None
                      ) -> ConfigTestResult:
    """Ask real nginx (``nginx -t``) whether it accepts a server body / http fragment."""
    return NginxServer(server_block, http_config=http_config, binary=binary).config_test()


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])
