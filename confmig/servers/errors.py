"""Exceptions raised by :mod:`confmig.servers`."""

from __future__ import annotations


class ServerError(Exception):
    """Base class for every error raised while locating, configuring or running a server."""


class ServerNotFound(ServerError):
    """The server binary (or its modules directory) is not installed."""


class ServerConfigError(ServerError):
    """The server rejected the generated configuration (``apache2 -t`` / ``nginx -t`` failed).

    ``output`` is the server's own diagnostic text; ``config_text`` the main config file that
    was tested (the temp dir is gone by the time you see the exception).
    """

    def __init__(self, message: str, *, output: str = "", config_text: str = "") -> None:
        super().__init__(message)
        self.output = output
        self.config_text = config_text


class ServerStartError(ServerError):
    """The configuration was accepted but the server exited or never opened its port."""

    def __init__(self, message: str, *, output: str = "") -> None:
        super().__init__(message)
        self.output = output
