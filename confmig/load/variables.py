"""``${NAME}`` substitution, as Apache's ``ap_resolve_env`` does it.

Apache substitutes on the whole logical line *before* splitting it into words,
looking first at ``Define``d variables (global, whatever section the Define was
written in) and then at the process environment.  An undefined ``${NAME}`` stays
as written (Apache warns); a name with ``:`` in it is left alone silently, since
that is mod_rewrite's ``${map:key}`` syntax.  (Apache 2.4 has no ``${NAME?=default}``: checked
on 2.4.71, it stays as written.)

Apache's ``ap_resolve_env`` puts no limit on the length of the substituted line (checked on
2.4.71: a ``Define`` doubled 26 times, a 128 MiB line, is read; 39 times exhausts memory).
confmig stops at :data:`MAX_EXPANDED_LINE` characters, the longest line Apache reads from a
server config file, and reports it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_VAR = re.compile(r"\$\{([^}]*)\}")

MAX_EXPANDED_LINE = 16 * 1024 * 1024  # VARBUF_MAX_LEN, Apache's longest configuration line


class ExpansionTooLong(Exception):
    """The substituted line would be longer than the limit; ``name`` is the variable that
    crossed it."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__(f"${{{name}}} makes this line longer than {limit:,} characters")
        self.name = name
        self.limit = limit


def resolve_vars(
    text: str, variables: Mapping[str, str], environ: Mapping[str, str],
    limit: int = MAX_EXPANDED_LINE,
) -> tuple[str, list[str]]:
    """Return the substituted text and the names that were not defined; raise
    :class:`ExpansionTooLong` before building a text longer than ``limit``."""
    if "${" not in text:
        return text, []
    missing: list[str] = []
    parts: list[str] = []
    size = 0
    pos = 0
    name = ""
    for m in _VAR.finditer(text):
        name = m.group(1)
        if name in variables:
            value = variables[name]
        elif name in environ:
            value = environ[name]
        else:
            if ":" not in name:
                missing.append(name)
            value = m.group(0)
        size += m.start() - pos + len(value)
        if size > limit:
            raise ExpansionTooLong(name, limit)
        parts.append(text[pos:m.start()])
        parts.append(value)
        pos = m.end()
    if size + len(text) - pos > limit:
        raise ExpansionTooLong(name, limit)
    parts.append(text[pos:])
    return "".join(parts), missing
