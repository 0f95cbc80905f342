"""Start real Apache httpd and nginx on 127.0.0.1 from private configs in temp dirs.

Shared by the tests, ``confmig verify`` and ``confmig bench``. Nothing here reads or changes
the system servers: every file (config, logs, pid, mutexes, temp paths) lives in a fresh temp
dir, the only listener is ``127.0.0.1:<port>``, and the server process is our own child,
stopped by PID.
"""

from confmig.servers.apache import (
    ALWAYS_ADDED_MODULES,
    BUILTIN_DEFAULT_MODULES,
    ApacheServer,
    ModuleSpec,
    apache_config_test,
    assumed_modules,
    daemonised,
    default_modules,
    module_short_name,
    mpm_required,
    resolve_modules,
)
from confmig.servers.base import ConfigTestResult, ManagedServer
from confmig.servers.binaries import ApacheBinary, NginxBinary, find_apache, find_nginx
from confmig.servers.errors import (
    ServerConfigError,
    ServerError,
    ServerNotFound,
    ServerStartError,
)
from confmig.servers.net import (
    Response,
    ResponseHeaders,
    free_port,
    http_get,
    port_open,
    wait_for_port,
)
from confmig.servers.nginx import NginxServer, nginx_config_test
from confmig.servers.process import WorkerIdentity, make_docroot, pin_to, worker_identity
from confmig.servers.under_test import ApacheUnderTest, ServerUnderTest

__all__ = [
    "ALWAYS_ADDED_MODULES",
    "BUILTIN_DEFAULT_MODULES",
    "ApacheBinary",
    "ApacheServer",
    "ApacheUnderTest",
    "ConfigTestResult",
    "ManagedServer",
    "ModuleSpec",
    "NginxBinary",
    "NginxServer",
    "Response",
    "ResponseHeaders",
    "ServerConfigError",
    "ServerError",
    "ServerNotFound",
    "ServerStartError",
    "ServerUnderTest",
    "WorkerIdentity",
    "apache_config_test",
    "assumed_modules",
    "daemonised",
    "default_modules",
    "find_apache",
    "find_nginx",
    "free_port",
    "http_get",
    "make_docroot",
    "module_short_name",
    "mpm_required",
    "nginx_config_test",
    "pin_to",
    "port_open",
    "resolve_modules",
    "wait_for_port",
    "worker_identity",
]
