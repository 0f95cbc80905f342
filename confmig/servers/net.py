"""Loopback networking helpers: free ports, readiness polling and a raw-path HTTP client."""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

LOOPBACK = "127.0.0.1"


def free_port(host: str = LOOPBACK) -> int:
    """Return a TCP port that is currently free on *host*.

    The port is released before returning, so another process may grab it first; the servers
    retry with a new port when they fail to bind.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_open(host: str, port: int, timeout: float = 0.2) -> bool:
    """True if a TCP connection to *host*:*port* succeeds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for_port(host: str, port: int, timeout: float,
                  still_alive: Callable[[], bool] = lambda: True,
                  precondition: Callable[[], bool] = lambda: True) -> bool:
    """Poll until ``precondition()`` holds and *host*:*port* accepts connections.

    Returns False on timeout or as soon as ``still_alive()`` turns false (the server died).
    """
    deadline = time.monotonic() + timeout
    delay = 0.01
    while time.monotonic() < deadline:
        if not still_alive():
            return False
        if precondition() and port_open(host, port):
            return True
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    return False


class ResponseHeaders(Mapping[str, str]):
    """Response headers: case-insensitive lookup, original order and spelling kept.

    ``headers[name]`` joins repeated fields with ``", "``; use :meth:`get_all` for fields such as
    ``Set-Cookie`` that must not be joined. Equality ignores name case.
    """

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self.raw: list[tuple[str, str]] = list(items)
        self._names: dict[str, str] = {}
        for name, _ in self.raw:
            self._names.setdefault(name.lower(), name)

    def get_all(self, name: str) -> list[str]:
        key = name.lower()
        return [value for n, value in self.raw if n.lower() == key]

    def __getitem__(self, name: str) -> str:
        values = self.get_all(name)
        if not values:
            raise KeyError(name)
        return ", ".join(values)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names.values())

    def __len__(self) -> int:
        return len(self._names)

    def lower(self) -> dict[str, str]:
        """Plain dict keyed by lower-case names (handy for comparing two servers)."""
        return {key: self[key] for key in self._names}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ResponseHeaders):
            return self.lower() == other.lower()
        if isinstance(other, Mapping):
            return self.lower() == {str(k).lower(): v for k, v in other.items()}
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ResponseHeaders({self.raw!r})"


@dataclass(frozen=True)
class Response:
    """What the server sent back, without any redirect following or decoding."""

    status: int
    reason: str
    headers: ResponseHeaders
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def http_get(
    base_url: str,
    path: str,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    *,
    body: bytes | None = None,
    timeout: float = 10.0,
) -> Response:
    """Send one request to *base_url* with *path* exactly as given and return the response.

    Nothing is normalised or re-encoded: ``/a/../b``, ``//x`` and ``%2e`` reach the server
    verbatim (only characters ``http.client`` refuses outright — controls and spaces — raise
    ``http.client.InvalidURL``). A character outside ASCII (``/café``, from a --requests file
    or a probe generated from a pattern) is sent as its UTF-8 bytes percent-encoded, as a
    browser does, and a header value as its UTF-8 bytes, as curl does from a UTF-8 terminal:
    the bytes a UTF-8 configuration's patterns are written in. Redirects are not followed. A
    ``Host`` or ``Accept-Encoding`` in *headers* replaces the default (``Host: host:port``,
    ``Accept-Encoding: identity``).
    """
    parts = urlsplit(base_url)
    if parts.scheme != "http" or parts.hostname is None:
        raise ValueError(f"http_get only speaks plain http://host:port, got {base_url!r}")
    target = parts.path.rstrip("/") + path if parts.path not in ("", "/") else path
    if not target.isascii():
        target = "".join(c if c.isascii() else quote(c, safe="") for c in target)
    headers = dict(headers or {})
    given = {name.lower() for name in headers}
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    try:
        conn.putrequest(method, target, skip_host="host" in given,
                        skip_accept_encoding="accept-encoding" in given)
        for name, value in headers.items():
            conn.putheader(name, value.encode("utf-8", "surrogateescape"))
        if body is not None and "content-length" not in given:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        data = resp.read()
        return Response(resp.status, resp.reason, ResponseHeaders(resp.getheaders()), data)
    finally:
        conn.close()
