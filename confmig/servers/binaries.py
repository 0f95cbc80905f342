"""Locate the Apache httpd and nginx binaries (and Apache's modules directory)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from confmig.servers.errors import ServerNotFound

APACHE_INSTALL_HINT = "apt-get install -y apache2"
NGINX_INSTALL_HINT = "apt-get install -y nginx"

_APACHE_NAMES = ("apache2", "httpd")
_APACHE_FALLBACKS = ("/usr/sbin/apache2", "/usr/sbin/httpd", "/usr/local/apache2/bin/httpd")
_NGINX_FALLBACKS = ("/usr/sbin/nginx", "/usr/local/nginx/sbin/nginx")
_MODULE_DIRS = (
    "/usr/lib/apache2/modules",  # Debian / Ubuntu
    "/usr/lib64/httpd/modules",  # Fedora / RHEL
    "/usr/lib/httpd/modules",
    "/usr/libexec/apache2",  # Alpine, SUSE
)
DEBIAN_APACHE_ETC = Path("/etc/apache2")


@dataclass(frozen=True)
class ApacheBinary:
    """An Apache httpd executable and where its loadable modules live.

    ``mods_enabled`` / ``mods_available`` are Debian's ``/etc/apache2/mods-*`` directories when
    present; they are only read (for the default module set and exact ``LoadModule`` lines).
    """

    path: Path
    modules_dir: Path
    mods_enabled: Path | None = None
    mods_available: Path | None = None

    @property
    def version(self) -> str:
        """E.g. ``"2.4.71"`` (from ``apache2 -v``)."""
        return _version(str(self.path), "-v", r"Apache/(\S+)")

    @property
    def static_modules(self) -> frozenset[str]:
        """Short names of compiled-in modules (``apache2 -l``), e.g. ``log_config``, ``unixd``."""
        return _static_modules(str(self.path))


@dataclass(frozen=True)
class NginxBinary:
    """An nginx executable."""

    path: Path

    @property
    def version(self) -> str:
        """E.g. ``"1.22.1"`` (from ``nginx -v``)."""
        return _version(str(self.path), "-v", r"nginx/(\S+)")


def _resolve(explicit: str | os.PathLike[str] | None, names: tuple[str, ...],
             fallbacks: tuple[str, ...]) -> Path | None:
    if explicit is not None:
        found = shutil.which(os.fspath(explicit))
        return Path(found).resolve() if found else None
    for name in names:
        found = shutil.which(name)
        if found:
            return Path(found).resolve()
    for candidate in fallbacks:
        if os.access(candidate, os.X_OK):
            return Path(candidate).resolve()
    return None


def find_apache(explicit: str | os.PathLike[str] | None = None) -> ApacheBinary:
    """Find Apache httpd: *explicit* (path or name), else ``$CONFMIG_APACHE``, else ``apache2`` /
    ``httpd`` on PATH, else the usual sbin locations.

    Raises :class:`ServerNotFound` naming the package to install.
    """
    explicit = explicit if explicit is not None else os.environ.get("CONFMIG_APACHE") or None
    path = _resolve(explicit, _APACHE_NAMES, _APACHE_FALLBACKS)
    if path is None:
        what = repr(os.fspath(explicit)) if explicit else "apache2/httpd on PATH or in /usr/sbin"
        raise ServerNotFound(
            f"Apache httpd not found ({what}). Install it with: {APACHE_INSTALL_HINT}"
        )
    modules_dir = _find_modules_dir(path)
    if modules_dir is None:
        raise ServerNotFound(
            f"Apache modules directory not found for {path} (looked in "
            f"{', '.join(_MODULE_DIRS)}). Install it with: {APACHE_INSTALL_HINT}"
        )
    enabled = DEBIAN_APACHE_ETC / "mods-enabled"
    available = DEBIAN_APACHE_ETC / "mods-available"
    return ApacheBinary(
        path=path,
        modules_dir=modules_dir,
        mods_enabled=enabled if enabled.is_dir() else None,
        mods_available=available if available.is_dir() else None,
    )


def find_nginx(explicit: str | os.PathLike[str] | None = None) -> NginxBinary:
    """Find nginx: *explicit*, else ``$CONFMIG_NGINX``, else PATH, else ``/usr/sbin/nginx``."""
    explicit = explicit if explicit is not None else os.environ.get("CONFMIG_NGINX") or None
    path = _resolve(explicit, ("nginx",), _NGINX_FALLBACKS)
    if path is None:
        what = repr(os.fspath(explicit)) if explicit else "nginx on PATH or in /usr/sbin"
        raise ServerNotFound(f"nginx not found ({what}). Install it with: {NGINX_INSTALL_HINT}")
    return NginxBinary(path=path)


def _find_modules_dir(binary: Path) -> Path | None:
    # A source build keeps modules/ next to bin/; distro builds use a fixed libdir.
    candidates = [binary.parent.parent / "modules", *map(Path, _MODULE_DIRS)]
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.glob("mod_*.so")):
            return candidate
    return None


@lru_cache(maxsize=8)
def _version(binary: str, flag: str, pattern: str) -> str:
    proc = subprocess.run([binary, flag], capture_output=True, text=True, timeout=10, check=False)
    match = re.search(pattern, proc.stdout + proc.stderr)
    return match.group(1) if match else "unknown"


@lru_cache(maxsize=8)
def _static_modules(binary: str) -> frozenset[str]:
    # `apache2 -l` lists e.g. "mod_log_config.c"; core.c / http_core.c are not loadable anyway.
    proc = subprocess.run([binary, "-l"], capture_output=True, text=True, timeout=10, check=False)
    return frozenset(re.findall(r"^\s*mod_(\w+)\.c\s*$", proc.stdout, flags=re.M))
