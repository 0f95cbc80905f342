"""Find the server's own configuration, as gixy finds ``/etc/nginx/nginx.conf``.

Without ``--config``, confmig looks for the configuration the installed Apache reads:

1. the Apache binary's compile-time settings (``apache2 -V`` / ``httpd -V``: ``HTTPD_ROOT``
   and ``SERVER_CONFIG_FILE``, what ``apache2ctl -V`` prints).  The binary is asked, not
   ``apache2ctl``: Debian's ``apache2ctl`` creates ``/var/run/apache2`` and
   ``/var/lock/apache2`` before doing anything else;
2. the usual places: Debian's ``/etc/apache2/apache2.conf``, RHEL's
   ``/etc/httpd/conf/httpd.conf``, the Apache default ``/usr/local/apache2/conf/httpd.conf``.

Debian's configuration takes ``${APACHE_RUN_DIR}``, ``${APACHE_LOG_DIR}``… from
``/etc/apache2/envvars``, which ``apache2ctl`` sources before starting Apache.  Reading that
file is :mod:`confmig.load.variables`' job (:func:`~confmig.load.variables.server_environ`):
:func:`confmig.load.load_config` applies it to every configuration it reads, so every command
expands those names alike.

Every path is injectable (:class:`Discovery`), so tests do not depend on the machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from confmig.apache.paths import directory_section_path, server_root_relative
from confmig.load.variables import ENVVARS_NAME, config_environment, read_envvars

# (read_envvars and config_environment live with the ${NAME} substitution that uses them)
__all__ = ["ENVVARS_NAME", "Choice", "Discovery", "FoundConfig", "choose_config",
           "config_environment", "find_server_config", "load_found", "read_envvars",
           "served_trees", "serves"]

DEFAULT_BINARIES = ("apache2", "httpd", "apache")
DEFAULT_BINARY_DIRS = ("/usr/sbin", "/usr/local/apache2/bin", "/usr/local/sbin")
DEFAULT_CANDIDATES = (
    "/etc/apache2/apache2.conf",         # Debian, Ubuntu
    "/etc/httpd/conf/httpd.conf",        # RHEL, Fedora, CentOS
    "/usr/local/apache2/conf/httpd.conf",  # built from source (the httpd Docker image)
)
V_TIMEOUT = 5.0

_DEFINE = re.compile(r'^\s*-D\s+(HTTPD_ROOT|SERVER_CONFIG_FILE)="([^"]*)"', re.M)


@dataclass(frozen=True)
class Discovery:
    """Where to look (all injectable, for tests)."""

    binaries: Sequence[str] = DEFAULT_BINARIES
    binary_dirs: Sequence[str] = DEFAULT_BINARY_DIRS
    candidates: Sequence[str] = DEFAULT_CANDIDATES
    # Runs ``binary -V`` and returns its output (None: it did not run).
    run_v: Callable[[str], str | None] | None = None


@dataclass(frozen=True)
class FoundConfig:
    """The server's configuration: its main file, ServerRoot, how it was found, and the
    environment Apache starts with (``envvars``)."""

    path: Path
    server_root: Path
    how: str
    envvars: Path | None = None
    environ: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        text = f"{self.path} ({self.how}"
        if self.envvars is not None:
            text += f"; ${{APACHE_*}} from {self.envvars}"
        return text + ")"


def find_server_config(discovery: Discovery | None = None) -> FoundConfig | None:
    """The configuration the installed Apache reads, or None (see the module docstring)."""
    discovery = discovery or Discovery()
    for binary in _binaries(discovery):
        output = (discovery.run_v or _run_v)(binary)
        if not output:
            continue
        settings = dict(_DEFINE.findall(output))
        name = settings.get("SERVER_CONFIG_FILE")
        if not name:
            continue
        root = Path(settings.get("HTTPD_ROOT") or "/")
        path = Path(server_root_relative(name, str(root)))
        if path.is_file():
            return _found(path, root, f"{binary} -V")
    for candidate in discovery.candidates:
        path = Path(candidate)
        if path.is_file():
            return _found(path, path.parent, "found in the usual place")
    return None


def _found(path: Path, root: Path, how: str) -> FoundConfig:
    envvars = path.parent / ENVVARS_NAME
    if not envvars.is_file():
        return FoundConfig(path, root, how)
    return FoundConfig(path, root, how, envvars, read_envvars(envvars))


def _binaries(discovery: Discovery) -> list[str]:
    found: list[str] = []
    for name in discovery.binaries:
        located = shutil.which(name, path=os.pathsep.join(
            [os.environ.get("PATH", ""), *discovery.binary_dirs]))
        if located and located not in found:
            found.append(located)
    return found


def _run_v(binary: str) -> str | None:
    try:
        proc = subprocess.run([binary, "-V"], capture_output=True, text=True,
                              timeout=V_TIMEOUT, errors="replace", check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout


def serves(config_nodes: Sequence[object], server_root: str, path: str | os.PathLike[str]
           ) -> bool:
    """*path* lies in a tree the configuration serves: below a ``DocumentRoot``, an
    ``Alias``/``ScriptAlias`` target or a non-regex ``<Directory>`` other than ``/``."""
    real = os.path.realpath(path)
    for root in _trees(config_nodes, server_root):
        if real == root or real.startswith(root.rstrip("/") + "/"):
            return True
    return False


def served_trees(nodes: Sequence[object], server_root: str) -> list[str]:
    """The real paths of the trees a configuration serves (see :func:`serves`)."""
    return sorted(set(_trees(nodes, server_root)))


def _trees(nodes: Sequence[object], server_root: str) -> list[str]:
    out: list[str] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        lname = getattr(node, "lname", "")
        args = list(getattr(node, "args", ()) or ())
        children = getattr(node, "children", None)
        if children is not None:
            stack.extend(children)
            if lname == "directory" and len(args) == 1 and args[0] != "~":
                path = directory_section_path(args[0]).rstrip("/")
                if path and "*" not in path and "?" not in path:
                    out.append(os.path.realpath(path))
            continue
        if lname == "documentroot" and args:
            out.append(os.path.realpath(server_root_relative(args[0], server_root)))
        elif lname in ("alias", "scriptalias") and len(args) == 2:
            out.append(os.path.realpath(server_root_relative(args[1], server_root)))
    return out


@dataclass(frozen=True)
class Choice:
    """Which server configuration a command uses without ``--config``: *config* (None: the
    assumed defaults) and the one-line *note* saying so."""

    config: Path | None
    note: str
    found: FoundConfig | None = None


def choose_config(paths: Sequence[str | os.PathLike[str]], *, no_config: bool = False,
                  discovery: Discovery | None = None,
                  load: Callable[[FoundConfig], Sequence[object]] | None = None) -> Choice:
    """The server's own configuration when there is one and it serves every PATH given (no
    PATH: it is used as is); otherwise the assumed defaults — with ``--no-config`` always.
    *load* returns a found configuration's effective nodes (default: :func:`load_found`)."""
    if no_config:
        return Choice(None, "--no-config: the server's own configuration is not read")
    found = find_server_config(discovery)
    if found is None:
        return Choice(None, "no server configuration found (apache2 -V, "
                            + ", ".join((discovery or Discovery()).candidates) + ")")
    nodes = (load or load_found)(found)
    outside = [str(p) for p in paths if not serves(nodes, str(found.server_root), p)]
    if outside:
        return Choice(None, f"the server's configuration {found.path} does not serve "
                            f"{', '.join(outside)}: not used (--config to use it anyway)",
                      found)
    return Choice(found.path, f"server config: {found.describe()}", found)


def load_found(found: FoundConfig) -> Sequence[object]:
    """The effective nodes of a found configuration (``load_config`` reads its ``envvars``)."""
    from confmig.load.conditions import ReadState
    from confmig.load.config import load_config

    loaded = load_config(found.path, state=ReadState(server_root=found.server_root))
    return loaded.nodes
