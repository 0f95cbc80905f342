"""The client-ceiling server: the cheapest answer a real server can give.

Measuring the load generator against it (same core, same connections, same URLs) shows how
many requests per second the client itself can drive; a target measured close to that figure
is limited by the client, not by its own work. nginx answering ``return 200`` from memory is
the cheapest server here; without nginx, Apache answering 204 from a server-context rewrite
(before any file-system work) gives a lower bound.
"""

from __future__ import annotations

from confmig.bench.targets.base import Target
from confmig.servers import (
    ApacheServer,
    ManagedServer,
    NginxServer,
    ServerNotFound,
    find_nginx,
)

_NGINX_BODY = """location / {
    return 200 "ok\\n";
}
"""
_APACHE_CONFIG = """RewriteEngine On
RewriteRule ^ - [R=204]
"""


class CeilingTarget(Target):
    name = "client-ceiling"
    description = "trivial in-memory answer, to measure the load client's own ceiling"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.server_kind = "nginx" if _has_nginx() else "apache"

    @property
    def label(self) -> str:
        return f"client ceiling ({self.server_kind} trivial answer)"

    def make_server(self) -> ManagedServer:
        if self.server_kind == "nginx":
            return NginxServer(_NGINX_BODY, None, cpus=self.ctx.cpus, worker_processes=1)
        return ApacheServer(None, server_config=_APACHE_CONFIG, mpm="event",
                            modules=["rewrite", "authz_core"], cpus=self.ctx.cpus)


def _has_nginx() -> bool:
    try:
        find_nginx()
    except ServerNotFound:
        return False
    return True
