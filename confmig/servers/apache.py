"""A real Apache httpd on 127.0.0.1, configured privately in a temp dir."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from confmig.servers.base import ConfigTestResult, ManagedServer, write_file
from confmig.servers.binaries import ApacheBinary, find_apache
from confmig.servers.errors import ServerConfigError, ServerStartError
from confmig.servers.net import LOOPBACK, wait_for_port
from confmig.servers.process import worker_identity
from confmig.servers.templating import render

# Debian's a2enmod defaults; used when /etc/apache2/mods-enabled is absent.
BUILTIN_DEFAULT_MODULES = (
    "mpm_event", "authz_core", "authz_host", "authz_user", "authn_core", "authn_file",
    "auth_basic", "access_compat", "alias", "autoindex", "dir", "env", "filter", "mime",
    "negotiation", "reqtimeout", "setenvif", "deflate", "status",
)
# Real-world .htaccess files lean on these, so the default set always has them.
ALWAYS_ADDED_MODULES = ("rewrite", "headers", "expires")
MPMS = ("event", "prefork", "worker")

_LOAD_RE = re.compile(r"^\s*LoadModule\s+(\S+)\s+(\S+)", re.M)
_LOADFILE_RE = re.compile(r"^\s*LoadFile\s+.+$", re.M)


@dataclass(frozen=True)
class ModuleSpec:
    """One ``LoadModule`` line: short name (``rewrite``), identifier, shared object."""

    name: str
    ident: str
    path: Path
    load_files: tuple[str, ...] = ()  # LoadFile lines Debian's .load puts before it


def module_short_name(name: str) -> str:
    """``mod_rewrite``, ``mod_rewrite.so``, ``rewrite_module``, ``mod_rewrite.c`` -> ``rewrite``."""
    short = name.strip()
    short = short.removesuffix(".so").removesuffix(".c").removesuffix("_module")
    return short.removeprefix("mod_")


def debian_enabled_modules(binary: ApacheBinary) -> list[str] | None:
    """Short names from ``mods-enabled/*.load`` (Debian's default set), or None if absent."""
    if binary.mods_enabled is None:
        return None
    names = [p.stem for p in sorted(binary.mods_enabled.glob("*.load"))]
    return names or None


def default_modules(binary: ApacheBinary, mpm: str | None = None) -> list[str]:
    """Debian's enabled set (or :data:`BUILTIN_DEFAULT_MODULES`) plus rewrite/headers/expires.

    With *mpm*, a module that only runs under another MPM is left out: Debian's
    ``libapache2-mod-php`` enables ``php8.2`` (``# Depends: mpm_prefork``) and switches the
    machine to prefork, and a threaded MPM refuses to start with it loaded.
    """
    base = debian_enabled_modules(binary) or list(BUILTIN_DEFAULT_MODULES)
    names = _dedupe([*base, *ALWAYS_ADDED_MODULES])
    if mpm is None:
        return names
    return [n for n in names if n.startswith("mpm_") or mpm_required(binary, n) in (None, mpm)]


def assumed_modules() -> list[str]:
    """The modules confmig's model assumes when it is given no configuration: Debian's
    defaults plus rewrite/headers/expires, whatever this machine has enabled (a machine with
    mod_php would otherwise run ``application/x-httpd-php`` handlers the model does not)."""
    return _dedupe([*BUILTIN_DEFAULT_MODULES, *ALWAYS_ADDED_MODULES])


_DEPENDS_RE = re.compile(r"^#\s*Depends:(.*)$", re.M)


def mpm_required(binary: ApacheBinary, name: str) -> str | None:
    """The MPM Debian's ``<name>.load`` says the module depends on (``# Depends: mpm_prefork``,
    read by a2enmod), or None."""
    text = _debian_load_text(binary, module_short_name(name))
    if text is None:
        return None
    for line in _DEPENDS_RE.findall(text):
        for dependency in line.split():
            if dependency.startswith("mpm_"):
                return dependency.removeprefix("mpm_")
    return None


def resolve_modules(binary: ApacheBinary, names: Iterable[str],
                    mpm: str | None = None) -> list[ModuleSpec]:
    """Turn module names into ``LoadModule`` specs for *binary*.

    Exactly one MPM is loaded: *mpm* if given, else the one named in *names*, else event;
    empty *names* and no *mpm* load nothing (the server config brings its own LoadModule
    lines). A module that Debian's ``.load`` says needs another MPM is refused here, before
    Apache would refuse it with a less clear message.
    Compiled-in modules are skipped. Order is alphabetical, as Debian's ``*.load`` glob
    (which is what makes e.g. ``proxy`` load before ``proxy_http``).
    """
    shorts = _dedupe(module_short_name(n) for n in names)
    named_mpms = [n.removeprefix("mpm_") for n in shorts if n.startswith("mpm_")]
    if not shorts and mpm is None:
        return []  # the server config loads its own modules (a copy of a real configuration)
    if mpm is None:
        mpm = named_mpms[0] if named_mpms else "event"
    if mpm not in MPMS:
        raise ValueError(f"mpm must be one of {MPMS}, got {mpm!r}")
    wanted = [n for n in shorts if not n.startswith("mpm_")] + [f"mpm_{mpm}"]
    for name in wanted:
        needed = mpm_required(binary, name)
        if needed not in (None, mpm):
            raise ServerConfigError(f"Apache module {name!r} needs mpm_{needed}, not mpm_{mpm} "
                                    f"(Debian's {name}.load: # Depends: mpm_{needed})")
    static = binary.static_modules
    return [_module_spec(binary, n) for n in sorted(wanted) if n not in static]


def _module_spec(binary: ApacheBinary, name: str) -> ModuleSpec:
    # Debian's .load files know the odd identifiers (php8_module, ...) and LoadFile prerequisites.
    text = _debian_load_text(binary, name)
    match = _LOAD_RE.search(text) if text is not None else None
    if match and (binary.modules_dir / Path(match.group(2)).name).is_file():
        return ModuleSpec(name, match.group(1), binary.modules_dir / Path(match.group(2)).name,
                          tuple(_LOADFILE_RE.findall(text or "")))
    path = binary.modules_dir / f"mod_{name}.so"
    if not path.is_file():
        raise ServerConfigError(f"Apache module {name!r} not found: {path} does not exist")
    return ModuleSpec(name, f"{name}_module", path)


def _debian_load_text(binary: ApacheBinary, name: str) -> str | None:
    """Debian's ``mods-available/<name>.load`` (its LoadModule and LoadFile lines and the
    ``# Depends:`` a2enmod reads), or None where there is none."""
    if binary.mods_available is None:
        return None
    load = binary.mods_available / f"{name}.load"
    return load.read_text(errors="replace") if load.is_file() else None


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


class ApacheServer(ManagedServer):
    """Run Apache httpd in the foreground as our child on ``127.0.0.1:<port>``.

    Use as a context manager (or :meth:`start` / :meth:`stop`)::

        with ApacheServer(docroot, allow_override="All") as srv:
            http_get(srv.base_url, "/index.html")

    By default the site is ``DocumentRoot docroot`` with a ``<Directory docroot>`` block
    (``Options`` as Debian's ``/var/www``, ``AllowOverride`` *allow_override*,
    ``Require all granted``). *server_config* replaces that site with your own text (``str``)
    or file (``pathlib.Path``); it must not contain ``Listen`` — use ``${CONFMIG_PORT}``,
    ``${CONFMIG_DOCROOT}`` and ``${CONFMIG_ROOT}`` instead. *extra_config* is server-context
    text included after the site (e.g. generated ``<Directory>`` blocks). User texts are
    written to their own files, so Apache's "line N of ..." refers to lines of your text.

    *modules* are short names (``rewrite`` or ``mod_rewrite``); the default is Debian's
    enabled set plus rewrite, headers and expires. *mpm* (event/prefork/worker) overrides any
    ``mpm_*`` in *modules*. *defines* become ``-D NAME``. As root the workers run as
    ``www-data`` (Apache refuses ``User root``), so the docroot must be world-readable: see
    :func:`confmig.servers.make_docroot`. *cpus* pins the server (all processes) to CPUs.
    """

    kind = "apache"

    def __init__(
        self,
        docroot: str | os.PathLike[str] | None = None,
        *,
        allow_override: str = "All",
        options: str = "Indexes FollowSymLinks",
        extra_config: str = "",
        server_config: str | os.PathLike[str] | None = None,
        modules: Iterable[str] | None = None,
        mpm: str | None = None,
        defines: Sequence[str] = (),
        log_level: str = "warn",
        access_log: bool = False,
        cpus: Iterable[int] | None = None,
        port: int | None = None,
        binary: ApacheBinary | str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        start_timeout: float = 10.0,
        stop_timeout: float = 10.0,
        check_docroot: bool = True,
        keep_dir: bool = False,
    ) -> None:
        super().__init__(docroot=docroot, port=port, cpus=cpus, env=env,
                         start_timeout=start_timeout, stop_timeout=stop_timeout,
                         check_docroot=check_docroot, keep_dir=keep_dir)
        self.binary = binary if isinstance(binary, ApacheBinary) else find_apache(binary)
        self.allow_override = allow_override
        self.options = options
        self.extra_config = extra_config
        self.server_config = server_config
        names = default_modules(self.binary, mpm) if modules is None else list(modules)
        self.modules = resolve_modules(self.binary, names, mpm)
        self.defines = list(defines)
        self.log_level = log_level
        self.access_log = access_log

    def access_log_text(self) -> str:
        """The access log (``combined`` format); empty unless ``access_log=True``."""
        return self._log_text("access")

    def _pid_file(self, root: Path) -> Path:
        return root / "run" / "httpd.pid"

    def _log_files(self, root: Path) -> dict[str, Path]:
        return {"error": root / "logs" / "error.log", "access": root / "logs" / "access.log"}

    def _write_config(self, root: Path, port: int, appended: str = "") -> Path:
        site_include: Path | None = None
        if isinstance(self.server_config, str):
            site_include = write_file(root / "site.conf", self.server_config)
        elif self.server_config is not None:
            site_include = Path(self.server_config).resolve()
        includes = [write_file(root / name, text) for name, text in
                    (("extra.conf", self.extra_config), ("appended.conf", appended)) if text]
        ident = worker_identity()
        types_config = Path("/etc/mime.types")
        if not types_config.is_file():
            types_config = write_file(root / "mime.types", "text/html html htm\n")
        text = render(
            "apache.conf.j2",
            root=str(root), port=port, listen=f"{LOOPBACK}:{port}",
            docroot=str(self.docroot) if self.docroot else None,
            modules=self.modules,
            load_files=_dedupe(line for m in self.modules for line in m.load_files),
            user=ident.user if ident else None, group=ident.group if ident else None,
            log_level=self.log_level, access_log=self.access_log,
            types_config=str(types_config), options=self.options,
            allow_override=self.allow_override,
            site_include=str(site_include) if site_include else None,
            includes=[str(p) for p in includes],
        )
        return write_file(root / "httpd.conf", text)

    def _base_argv(self, conf: Path) -> list[str]:
        argv = [str(self.binary.path), "-d", str(conf.parent), "-f", str(conf)]
        for name in self.defines:
            argv += ["-D", name]
        return argv

    def _test_argv(self, conf: Path) -> list[str]:
        return [*self._base_argv(conf), "-t"]

    def _run_argv(self, conf: Path) -> list[str]:
        # FOREGROUND: no detach and no setsid, so the master stays our child and we own its PID.
        return [*self._base_argv(conf), "-D", "FOREGROUND"]


def apache_config_test(
    config_text: str,
    *,
    modules: Iterable[str] | None = None,
    mpm: str | None = None,
    defines: Sequence[str] = (),
    binary: ApacheBinary | str | os.PathLike[str] | None = None,
) -> ConfigTestResult:
    """Ask real Apache (``apache2 -t``) whether it accepts *config_text* in server context.

    The text goes into its own file, included from a minimal private httpd.conf with the given
    modules loaded (default set as in :class:`ApacheServer`) and no default site, so line
    numbers in the message are lines of *config_text*. Returns ``(ok, message)``.
    """
    server = ApacheServer(None, server_config=config_text, modules=modules, mpm=mpm,
                          defines=defines, binary=binary)
    return server.config_test()


@contextmanager
def daemonised(server: ApacheServer, cwd: str | os.PathLike[str]) -> Iterator[str]:
    """Run *server*'s configuration the way init scripts do — ``apache2 -k start`` from *cwd*,
    which detaches — and yield its base URL; the daemon is stopped by its pid file.

    A detached Apache does ``chdir("/")`` before it reads its configuration for good, so a
    relative ``<Directory>`` means something else than under ``-D FOREGROUND``
    (:mod:`confmig.apache.paths`).  The configuration must already be written and kept: run
    ``with server: pass`` first on an ``ApacheServer(..., keep_dir=True)``, and remove
    ``server.conf_path.parent`` afterwards.
    """
    conf = server.conf_path
    pid_file = conf.parent / "run" / "httpd.pid"
    pid_file.unlink(missing_ok=True)
    subprocess.run([*server._base_argv(conf), "-k", "start"], cwd=cwd, check=True, timeout=30)
    try:
        if not wait_for_port(LOOPBACK, server.port, 10.0):
            raise ServerStartError(f"daemonised Apache did not listen on port {server.port}")
        yield f"http://{LOOPBACK}:{server.port}"
    finally:
        deadline = time.monotonic() + 10
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        if pid_file.exists():
            os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
            while pid_file.exists() and time.monotonic() < deadline + 10:
                time.sleep(0.05)
