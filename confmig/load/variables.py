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

The process environment a configuration is read with is :func:`server_environ`: this
process's, with Debian's ``envvars`` beside the main file applied over it, as ``apache2ctl``
sources it before starting Apache (``${APACHE_RUN_DIR}``, ``${APACHE_LOG_DIR}``…).
:func:`read_envvars` reads that file without running a shell: ``[export] NAME=value`` lines
with ``$NAME``/``${NAME}``/``${NAME:-default}`` in their values; anything else (``if``,
command substitution, ``${NAME##…}``) is skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

_VAR = re.compile(r"\$\{([^}]*)\}")

ENVVARS_NAME = "envvars"
_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_SHELL_VAR = re.compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")
_UNSUPPORTED = ("`", "$(", "${#", "##", "%%", ";", "&", "|", "<", ">")

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


def config_environment(config: str | os.PathLike[str]) -> tuple[Path | None, dict[str, str]]:
    """The ``envvars`` beside *config* (Debian's layout) and what it sets, or (None, {})."""
    envvars = Path(config).parent / ENVVARS_NAME
    if not envvars.is_file():
        return None, {}
    return envvars, read_envvars(envvars)


def server_environ(config: str | os.PathLike[str],
                   base: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The environment Apache reads ``${NAME}`` from when started for *config*: *base* (this
    process's environment) with the ``envvars`` beside *config* applied over it, as
    ``apache2ctl`` does; *base* itself when there is none."""
    base = os.environ if base is None else base
    envvars = Path(config).parent / ENVVARS_NAME
    if not envvars.is_file():
        return base
    return {**base, **read_envvars(envvars, base)}


def read_envvars(path: str | os.PathLike[str], base: Mapping[str, str] | None = None
                 ) -> dict[str, str]:
    """The variables Debian's ``envvars`` exports, read without running a shell: ``[export]
    NAME=value`` (value unquoted, '…' or "…"), ``$NAME``, ``${NAME}`` and ``${NAME:-word}``
    expanded from what was set before (or *base*); an unset name is empty, as in the shell.
    A line with anything else (commands, ``${NAME##…}``, pipes) is skipped.  The values
    assigned are returned; only exported names are, as only those reach Apache."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    scope: dict[str, str] = dict(base or {})
    exported: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        bare = re.fullmatch(r"export\s+([A-Za-z_][A-Za-z0-9_]*)", line)
        if bare:
            name = bare.group(1)
            if name in scope:
                exported[name] = scope[name]
            continue
        match = _ASSIGN.match(line)
        if match is None:
            continue
        value = _value(match.group(2), scope)
        if value is None:
            continue
        scope[match.group(1)] = value
        if line.startswith("export"):
            exported[match.group(1)] = value
    return exported


def _value(raw: str, scope: Mapping[str, str]) -> str | None:
    raw = raw.strip()
    if any(token in raw for token in _UNSUPPORTED):
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1]
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        raw = raw[1:-1]
    elif any(c in raw for c in " \t'\""):
        return None

    def expand(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        value = scope.get(name, "")
        if match.group(1) and match.group(2) is not None and not value:
            return match.group(2)
        return value

    if "${" in _SHELL_VAR.sub("", raw):
        return None  # a form not supported
    return _SHELL_VAR.sub(expand, raw)
