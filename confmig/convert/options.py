"""What ``confmig convert`` is asked for besides the paths: a module of its own so that
``confmig.convert`` (and with it the command line) can name it without importing a
converter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class Options:
    """What the user asked for besides the paths."""

    #: Where Apache answered 500 for an access file, the converted block answers 500 too
    #: (the safe default).  False is ``--serve-500``: the refused lines become comments and
    #: the block serves what Apache refused — announced as a behaviour change.
    keep_500: bool = True
    check: bool = True  # run the result through apache2 -t
    apache: str | None = None
    defines: Sequence[str] = ()
    #: Walk symlinked directories and read access files out of the tree (never /proc, /sys,
    #: /dev, never in a loop); without it they are denied (confmig.convert.httpd.denied).
    follow_symlinks: bool = False
