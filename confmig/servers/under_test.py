"""The server under test: anything that starts, answers on a ``base_url`` and stops — what
``confmig verify`` compares and ``confmig bench`` measures (the bench's targets subclass it,
verify's converters add their own for the converted side)."""

from __future__ import annotations

import abc
from types import TracebackType
from typing import Any, Self

from confmig.servers.apache import ApacheServer
from confmig.servers.base import ManagedServer


class ServerUnderTest(abc.ABC):
    """One server under test."""

    label: str = "server"

    @abc.abstractmethod
    def start(self) -> None:
        """Start and wait until it answers; raise :class:`confmig.servers.ServerError`."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop everything :meth:`start` started; safe to call twice or after a failure."""

    @property
    @abc.abstractmethod
    def base_url(self) -> str: ...

    @property
    @abc.abstractmethod
    def port(self) -> int: ...

    def diagnostics(self) -> str:
        """What the server logged (for error messages)."""
        return ""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class ManagedUnderTest(ServerUnderTest):
    """A :class:`confmig.servers.ManagedServer` (Apache, nginx, gunicorn…) as the server
    under test, under *label*."""

    def __init__(self, label: str, server: ManagedServer) -> None:
        self.label = label
        self.server = server

    def start(self) -> None:
        self.server.start()

    def stop(self) -> None:
        self.server.stop()

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def port(self) -> int:
        return self.server.port

    def diagnostics(self) -> str:
        return self.server.error_log_text()[-2000:]


class ApacheUnderTest(ManagedUnderTest):
    """Apache httpd through :class:`confmig.servers.ApacheServer` (same keyword arguments)."""

    def __init__(self, label: str, **server_args: Any) -> None:
        super().__init__(label, ApacheServer(**server_args))


__all__ = ["ApacheUnderTest", "ManagedUnderTest", "ServerUnderTest"]
