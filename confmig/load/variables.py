"""``${NAME}`` substitution, as Apache's ``ap_resolve_env`` does it.

Apache substitutes on the whole logical line *before* splitting it into words,
looking first at ``Define``d variables (global, whatever section the Define was
written in) and then at the process environment.  An undefined ``${NAME}`` stays
as written (Apache warns); a name with ``:`` in it is left alone silently, since
that is mod_rewrite's ``${map:key}`` syntax.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_VAR = re.compile(r"\$\{([^}]*)\}")


def resolve_vars(
    text: str, variables: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[str, list[str]]:
    """Return the substituted text and the names that were not defined."""
    if "${" not in text:
        return text, []
    missing: list[str] = []

    def substitute(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in variables:
            return variables[name]
        if name in environ:
            return environ[name]
        if ":" not in name:
            missing.append(name)
        return m.group(0)

    return _VAR.sub(substitute, text), missing
