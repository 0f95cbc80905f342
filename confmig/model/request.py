"""One HTTP request as the model evaluates it: method, raw request target, headers.

The request target is kept exactly as a client sends it (``/a/../b%20c?x=1``): decoding and
normalising it is the server's job (:mod:`confmig.model.mapping`), and Apache refuses some
targets (400, 404) before any configuration is consulted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urlsplit

from confmig.model.protocol import refusal
from confmig.model.rewrite.request import Headers


class RequestHeaders(Headers):
    """Request header fields, looked up case-insensitively as ``apr_table_get`` does.

    A repeated field keeps its first value for lookups (Apache merges repeated request fields
    with ``", "``; :meth:`add` does the same).  It is the rewrite engine's :class:`Headers`
    (same storage), so the engine takes it as it is.
    """

    __slots__ = ()

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        self._items = {}
        pairs = items.items() if isinstance(items, Mapping) else items
        for name, value in pairs:
            self.add(name, value)

    def add(self, name: str, value: str) -> None:
        key = name.lower()
        if key in self._items:
            first, old = self._items[key]
            self._items[key] = (first, f"{old}, {value}")
        else:
            self._items[key] = (name, value)

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        item = self._items.get(name.lower())
        return item[1] if item is not None else default

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def items_raw(self) -> list[tuple[str, str]]:
        """(name, value) as given (a repeated field once, its values joined)."""
        return list(self._items.values())

    def as_dict(self) -> dict[str, str]:
        return {name: value for name, value in self._items.values()}

    def __repr__(self) -> str:
        return f"RequestHeaders({self.as_dict()!r})"


class RequestError(ValueError):
    """A URL or header the command line cannot turn into a request."""


@dataclass(frozen=True)
class Request:
    """A request as it reaches the server.

    ``target`` is the raw request-target (path and query, still %-encoded).  ``port`` is the
    port the connection arrived on; ``host`` the Host header's name (lower-cased, no port) and
    ``host_port`` its port, if any.  ``remote_addr`` is the client (tests run on loopback).
    """

    target: str = "/"
    method: str = "GET"
    headers: RequestHeaders = field(default_factory=RequestHeaders)
    port: int = 80
    https: bool = False
    remote_addr: str = "127.0.0.1"
    local_addr: str = "127.0.0.1"
    protocol: str = "HTTP/1.1"
    dns_lookups: bool = True  # host-name access control may ask the system resolver
    clock: float | None = None  # the time of the request (seconds since the epoch; None: now)

    @property
    def path(self) -> str:
        """The raw (still %-encoded) path part of the target."""
        return self.target.partition("?")[0]

    @property
    def query(self) -> str | None:
        """``r->args``: the raw query string, None when the target has no ``?``."""
        _, sep, query = self.target.partition("?")
        return query if sep else None

    @property
    def host_header(self) -> str | None:
        return self.headers.get("Host")

    @cached_property
    def host(self) -> str | None:
        """The Host header's name, lower-cased, without port or trailing dot."""
        return split_host(self.host_header)[0]

    @cached_property
    def host_port(self) -> int | None:
        return split_host(self.host_header)[1]

    @property
    def scheme(self) -> str:
        return "https" if self.https else "http"

    @property
    def the_request(self) -> str:
        return f"{self.method} {self.target} {self.protocol}"

    def with_target(self, target: str, method: str | None = None) -> Request:
        """The same connection and headers, another target (internal redirects, sub-requests)."""
        return Request(target, method or self.method, self.headers, self.port, self.https,
                       self.remote_addr, self.local_addr, self.protocol, self.dns_lookups,
                       self.clock)

    @classmethod
    def from_url(cls, url: str, *, method: str = "GET",
                 headers: Mapping[str, str] | Iterable[tuple[str, str]] = (),
                 host: str | None = None, port: int | None = None) -> Request:
        """Build a request from ``http://host[:port]/path?q`` or a bare ``/path?q``.

        A URL that starts with ``/`` is a path, whatever follows (``/a://b`` too); only
        ``http(s)://host/…`` is the absolute form, sent as curl sends it: the path as the
        target, the authority as the Host header.  Anything else (``*``, ``x``) is sent as
        the target, for the server to judge.  The Host header comes from *headers*, else
        *host*, else the URL's authority; the connection port from *port*, else the URL's
        port, else the scheme's default.  The path is kept verbatim (``urlsplit`` would drop a
        ``#fragment``; a fragment is never sent).  :class:`RequestError` for what no client
        would send (a malformed URL, an empty one, blanks or line breaks in it).
        """
        hdrs = RequestHeaders(headers)
        https = False
        target = url
        if not url:
            raise RequestError("the URL is empty")
        if not url.startswith("/") and "://" in url:
            try:
                parts = urlsplit(url)
                url_port = parts.port
            except ValueError as exc:
                raise RequestError(f"malformed URL {_quoted(url)}: {exc}") from exc
            if parts.scheme not in ("http", "https"):
                raise RequestError(f"unsupported URL scheme {_quoted(parts.scheme)} "
                                   "(http or https)")
            https = parts.scheme == "https"
            authority = parts.netloc.rpartition("@")[2]
            if not authority or authority.startswith(":"):
                raise RequestError(f"no host in the URL {_quoted(url)}")
            rest = url.split("://", 1)[1]
            slash = rest.find("/")
            query_mark = rest.find("?")
            if slash < 0 or (0 <= query_mark < slash):
                target = "/" + (rest[query_mark:] if query_mark >= 0 else "")
            else:
                target = rest[slash:]
            if host is None:
                host = authority
            if port is None:
                port = url_port
        target = target.partition("#")[0]
        if not target:
            target = "/"
        if any(ch in target for ch in " \t\r\n"):
            raise RequestError("the URL must not contain blanks or line breaks (encode them)")
        if "host" not in hdrs and host is not None:
            hdrs.add("Host", host)
        if port is None:
            port = split_host(hdrs.get("Host"))[1] or (443 if https else 80)
        return cls(target, method.upper(), hdrs, port, https)

    @cached_property
    def refused(self) -> tuple[int, str] | None:
        """(status, why) when Apache, with its default limits, refuses this request while
        reading it (:func:`confmig.model.protocol.refusal`); worked out once per request."""
        return refusal(self.method, self.target, self.protocol, self.headers.items_raw())


def _quoted(text: str) -> str:
    """*text* for a one-line message: control characters escaped, a long one cut."""
    return repr(text if len(text) <= 80 else f"{text[:60]}…{text[-10:]}")


def split_host(value: str | None) -> tuple[str | None, int | None]:
    """``Host`` header → (name lower-cased without trailing dot, port or None)."""
    if not value:
        return None, None
    text = value.strip()
    port: int | None = None
    if text.startswith("["):
        end = text.find("]")
        name, rest = (text[1:end], text[end + 1:]) if end > 0 else (text, "")
    else:
        name, sep, rest = text.partition(":")
        rest = ":" + rest if sep else ""
    if rest.startswith(":") and rest[1:].isdigit():
        port = int(rest[1:])
    return name.lower().rstrip(".") or None, port


def parse_header_option(text: str) -> tuple[str, str]:
    """``-H 'Name: value'`` as curl takes it → (name, value).  What Apache makes of an odd
    name or value (400) is :mod:`confmig.model.protocol`'s to say; only text that is not a
    header line at all is refused here."""
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name or any(ch in name for ch in " \t"):
        raise RequestError(f"bad header {_quoted(text)}: expected 'Name: value'")
    return name, value.strip(" \t")
