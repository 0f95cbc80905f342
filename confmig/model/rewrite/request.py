"""What the rewrite engine needs to know about a request and the filesystem behind it."""

from __future__ import annotations

import copy
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable
from urllib.parse import unquote_to_bytes

from confmig.model.rewrite.regex import from_bytes
from confmig.model.urlpath import normalize_path


@runtime_checkable
class Filesystem(Protocol):
    """The filesystem ``-f -d -s -l -x`` conditions (and path splitting) consult.

    ``exists`` and ``is_executable`` are optional; ``exists`` falls back to file-or-dir.
    """

    def is_file(self, path: str) -> bool: ...
    def is_dir(self, path: str) -> bool: ...
    def size(self, path: str) -> int | None: ...
    def is_symlink(self, path: str) -> bool: ...


class RealFilesystem:
    """The local filesystem (``stat``/``lstat``), as Apache's ``apr_stat`` sees it."""

    @staticmethod
    def _stat(path: str) -> os.stat_result | None:
        try:
            return os.stat(path)
        except (OSError, ValueError):
            return None

    def is_file(self, path: str) -> bool:
        st = self._stat(path)
        return st is not None and stat.S_ISREG(st.st_mode)

    def is_dir(self, path: str) -> bool:
        st = self._stat(path)
        return st is not None and stat.S_ISDIR(st.st_mode)

    def size(self, path: str) -> int | None:
        st = self._stat(path)
        return st.st_size if st is not None and stat.S_ISREG(st.st_mode) else None

    def is_symlink(self, path: str) -> bool:
        try:
            return stat.S_ISLNK(os.lstat(path).st_mode)
        except (OSError, ValueError):
            return False

    def exists(self, path: str) -> bool:
        return self._stat(path) is not None

    def is_executable(self, path: str) -> bool:
        st = self._stat(path)
        return st is not None and bool(st.st_mode & 0o111)


class MemoryFilesystem:
    """An in-memory tree for tests: ``files`` maps path → size (or content), plus directories
    (parents of files are directories too), symlinks and executables."""

    def __init__(self, files: Mapping[str, int | str] | None = None, dirs: tuple[str, ...] = (),
                 symlinks: tuple[str, ...] = (), executables: tuple[str, ...] = ()) -> None:
        self.files = {p: (len(v) if isinstance(v, str) else v) for p, v in (files or {}).items()}
        self.dirs = {"/"}
        for p in [*self.files, *dirs]:
            parts = p.rstrip("/").split("/")
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]) or "/")
        self.dirs.update(d.rstrip("/") or "/" for d in dirs)
        self.symlinks = set(symlinks)
        self.executables = set(executables)

    @staticmethod
    def _norm(path: str) -> str:
        return path.rstrip("/") or "/"

    def is_file(self, path: str) -> bool:
        return path in self.files

    def is_dir(self, path: str) -> bool:
        return self._norm(path) in self.dirs

    def size(self, path: str) -> int | None:
        return self.files.get(path)

    def is_symlink(self, path: str) -> bool:
        return self._norm(path) in self.symlinks

    def exists(self, path: str) -> bool:
        return self.is_file(path) or self.is_dir(path)

    def is_executable(self, path: str) -> bool:
        return path in self.executables


class Lookahead(Protocol):
    """Sub-requests for ``%{LA-U:var}``, ``%{LA-F:var}``, ``-U`` and ``-F``.

    Either method may return None: "cannot tell" — the engine then reports it as unsupported.
    """

    def variable(self, kind: Literal["uri", "file"], path: str, name: str) -> str | None: ...

    def status(self, kind: Literal["uri", "file"], path: str) -> tuple[int, str | None] | None:
        """``(status of the sub-request, its r->filename)``."""
        ...


class Headers(Mapping[str, str]):
    """Request headers, looked up case-insensitively (``apr_table_get``)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str] | None = None) -> None:
        self._items: dict[str, tuple[str, str]] = {}
        for k, v in (items or {}).items():
            self._items[k.lower()] = (k, v)

    def __getitem__(self, key: str) -> str:
        return self._items[key.lower()][1]

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        item = self._items.get(key.lower())
        return item[1] if item is not None else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({dict(self.items())!r})"


@dataclass(slots=True)
class RewriteRequest:
    """A request as mod_rewrite sees it.

    ``uri`` is ``r->uri`` (path only, %-decoded), ``query`` is ``r->args`` (raw, None when
    absent).  ``host`` is ``r->hostname`` (the Host header's host, lower-cased; None → the
    ServerName) and ``port`` what ``%{SERVER_PORT}`` gives (Host header port, else the
    ServerName's, else 80/443).  ``server_name``/``server_aliases``/``server_name_port``/
    ``vhost_addresses`` describe the serving virtual host; they decide when an absolute URL in
    a substitution is "ourselves" and becomes local.  ``path_info`` is ``r->path_info`` as the
    directory walk left it (per-directory context).  ``cookie_names``: see ``[CO]``.
    """

    uri: str = "/"
    query: str | None = None
    method: str = "GET"
    headers: Mapping[str, str] = field(default_factory=dict)
    host: str | None = None
    port: int = 80
    https: bool = False
    remote_addr: str = "127.0.0.1"
    remote_port: int = 50000
    server_addr: str = "127.0.0.1"
    the_request: str | None = None
    protocol: str = "HTTP/1.1"
    env: dict[str, str] = field(default_factory=dict)
    # True when ``env`` is r->subprocess_env itself (the request model): ``[E]`` writes into
    # it as Apache does; otherwise it is copied on the first write and the changes are
    # only reported (RewriteOutcome.env).
    env_shared: bool = False
    fs: Filesystem = field(default_factory=RealFilesystem)
    lookahead: Lookahead | None = None
    document_root: str = "/var/www/html"
    path_info: str = ""
    server_name: str = "localhost"
    server_aliases: tuple[str, ...] = ()
    server_name_port: int = 0
    vhost_addresses: tuple[tuple[str, int], ...] = ()
    server_admin: str = "[no address given]"
    server_software: str = "Apache/2.4.71 (Debian)"  # ServerTokens Full (the default)
    api_version: str = "20120211:142"  # MODULE_MAGIC_NUMBER of 2.4.71
    remote_user: str | None = None
    auth_type: str | None = None
    remote_host: str | None = None
    is_subrequest: bool = False
    context_prefix: str = ""
    context_document_root: str | None = None
    symlinks_allowed: bool = True
    limit_request_line: int = 8190
    ipv6: bool = False
    now: datetime | None = None
    # The names [CO] already set for this request (``<name>_rewrite`` in the main request's
    # pool: internal redirects and sub-requests share it); None: each pass has its own.
    cookie_names: set[str] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.headers, Headers):
            self.headers = Headers(self.headers)
        if self.the_request is None:
            target = self.uri + (f"?{self.query}" if self.query is not None else "")
            self.the_request = f"{self.method} {target} {self.protocol}"

    @property
    def scheme(self) -> str:
        return "https" if self.https else "http"

    def copy(self) -> RewriteRequest:
        """A shallow copy (for a look-ahead sub-request, which is rare: ``copy.copy``)."""
        return copy.copy(self)

    @property
    def server_name_for_url(self) -> str:
        """``ap_get_server_name_for_url`` with ``UseCanonicalName Off``."""
        name = self.host or self.server_name
        return f"[{name}]" if ":" in name else name

    @classmethod
    def from_target(cls, target: str, *, method: str = "GET",
                    headers: Mapping[str, str] | None = None, https: bool = False,
                    **kwargs: object) -> RewriteRequest:
        """Build a request from a raw request target (``/a%20b?x=1``) and headers, deriving
        ``uri``, ``query``, ``host``, ``port`` and ``the_request`` the way httpd does."""
        hdrs = Headers(headers or {})
        path, sep, query = target.partition("?")
        # ap_normalize_path on the raw path, then the %-decoding (a path Apache refuses with
        # 400 is kept as written: the engine's callers give well-formed targets)
        normalized = normalize_path(path)
        uri = from_bytes(unquote_to_bytes(normalized if normalized is not None else path))
        host_header = hdrs.get("Host")
        host: str | None = None
        port: int | None = None
        if host_header:
            h = host_header.strip()
            if h.startswith("["):
                end = h.find("]")
                host, rest = h[1:end], h[end + 1:]
            else:
                host, _, rest = h.partition(":")
                rest = ":" + rest if rest else ""
            if rest.startswith(":") and rest[1:].isdigit():
                port = int(rest[1:])
            host = host.lower().rstrip(".")
        if port is None:  # ap_get_server_port: Host's port, else ServerName's, else the default
            configured = kwargs.get("server_name_port")
            port = configured if isinstance(configured, int) and configured else (
                443 if https else 80)
        protocol = str(kwargs.pop("protocol", "HTTP/1.1"))
        return cls(uri=uri, query=query if sep else None, method=method,
                   headers=hdrs, host=host, port=port, https=https, protocol=protocol,
                   the_request=f"{method} {target} {protocol}",
                   **kwargs)  # type: ignore[arg-type]
