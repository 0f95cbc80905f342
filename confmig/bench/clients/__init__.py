"""Load generators: wrk when installed, else ab, else a built-in asyncio client."""

from __future__ import annotations

from confmig.bench.clients.ab import AbClient
from confmig.bench.clients.base import (
    ClientError,
    LoadClient,
    LoadResult,
    LoadSpec,
    run_pinned,
)
from confmig.bench.clients.builtin import BuiltinClient
from confmig.bench.clients.wrk import WrkClient

CLIENTS: dict[str, type[LoadClient]] = {
    "wrk": WrkClient,
    "ab": AbClient,
    "builtin": BuiltinClient,
}
PREFERENCE = ("wrk", "ab", "builtin")


def choose_client(name: str | None = None, by_requests: bool = False) -> LoadClient:
    """The named client (ClientError when it is not installed or cannot do the job), or the
    best one available: wrk, else ab, else built-in (wrk is skipped for *by_requests*)."""
    if name is not None:
        cls = CLIENTS.get(name)
        if cls is None:
            raise ClientError(f"unknown client {name!r}; choose from {', '.join(CLIENTS)}")
        if not cls.available():
            raise ClientError(f"{name} is not installed (apt-get install "
                              f"{'apache2-utils' if name == 'ab' else name})")
        if by_requests and not cls.supports_requests:
            raise ClientError(f"{name} cannot stop after a number of requests: use "
                              "--duration, or --client ab / builtin")
        return cls()
    for candidate in PREFERENCE:
        cls = CLIENTS[candidate]
        if cls.available() and (cls.supports_requests or not by_requests):
            return cls()
    raise ClientError("no load client available")  # pragma: no cover - builtin always is


__all__ = [
    "CLIENTS",
    "AbClient",
    "BuiltinClient",
    "ClientError",
    "LoadClient",
    "LoadResult",
    "LoadSpec",
    "WrkClient",
    "choose_client",
    "run_pinned",
]
