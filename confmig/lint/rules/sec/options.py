"""``Options`` arguments as core's ``set_options`` reads them (asked of the model:
:func:`confmig.model.merge.core.read_options`)."""

from __future__ import annotations

from confmig.model.merge.core import OPTION_BITS, read_options
from confmig.syntax import Directive


def enables(d: Directive, option: str) -> bool:
    """Whether this ``Options`` line turns ``option`` (lower-case: ``indexes``, ``execcgi``…)
    on — ``All``, and ``RunScripts`` for ExecCGI, included; a line Apache refuses turns
    nothing on."""
    read = read_options(d.args)
    if isinstance(read, str):
        return False
    bit = OPTION_BITS[option]
    return read[0] & bit == bit
