"""Which server configuration a command reads: ``--config``, or the server's own when it serves
every PATH, or none (``--no-config``) — the one choice behind ``lint``, ``parse`` and
``explain``, whichever command line parsed their arguments."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path


class ConfigChoiceError(Exception):
    """Options that contradict each other: a one-line usage error."""


def server_config(config: Path | None, paths: Sequence[Path], no_config: bool,
                  note: Callable[[str], None]) -> Path | None:
    """``--config``, or the server's own configuration when it serves every PATH
    (:func:`confmig.load.discover.choose_config`; said through *note* when used).  A Debian
    ``envvars`` beside it is not put into this process's environment: ``load_config`` reads
    it for every consumer alike (:func:`confmig.load.variables.server_environ`)."""
    if config is not None and no_config:
        raise ConfigChoiceError("--config and --no-config contradict each other")
    if config is None and no_config:
        return None      # (nothing to look for: choose_config's answer, without loading it)
    from confmig.load.discover import choose_config

    if config is None:
        choice = choose_config(list(paths), no_config=no_config)
        if choice.config is not None:
            note(f"note: {choice.note}")
        config = choice.config
    return config
