"""``Options`` arguments as core's ``set_options`` reads them."""

from __future__ import annotations

from confmig.syntax import Directive

# What "All" switches on (everything but MultiViews).
ALL_OPTIONS = frozenset({"indexes", "includes", "followsymlinks", "execcgi"})


def enables(d: Directive, option: str) -> bool:
    """Whether this ``Options`` line turns ``option`` (lower-case) on."""
    on = False
    for arg in d.args:
        word = arg.lower()
        sign = word[:1] if word[:1] in "+-" else ""
        name = word[1:] if sign else word
        if name == "all":
            on = sign != "-" and option in ALL_OPTIONS
        elif name == "none":
            on = False
        elif name == option:
            on = sign != "-"
    return on
