"""Which server configuration a command reads: ``--config``, or the server's own when it serves
every PATH, or none (``--no-config``) — the one choice behind ``lint``, ``parse`` and
``explain``, whichever command line parsed their arguments."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path


class ConfigChoiceError(Exception):
    """Options that contradict each other: a one-line usage error."""


def server_config(config: Path | None, paths: Sequence[Path], no_config: bool,
                  note: Callable[[str], None]) -> Path | None:
    """``--config``, or the server's own configuration when it serves every PATH
    (:func:`confmig.load.discover.choose_config`; said through *note* when used).  A Debian
    ``envvars`` beside it is read into the environment, as ``apache2ctl`` does before it
    starts Apache, so ``${APACHE_RUN_DIR}`` and friends expand."""
    if config is not None and no_config:
        raise ConfigChoiceError("--config and --no-config contradict each other")
    if config is None and no_config:
        return None      # (nothing to look for: choose_config's answer, without loading it)
    from confmig.load.discover import choose_config, config_environment

    if config is None:
        choice = choose_config(list(paths), no_config=no_config)
        if choice.config is not None:
            note(f"note: {choice.note}")
        config = choice.config
    if config is not None and config.is_file():
        os.environ.update(config_environment(config)[1])
    return config
