"""The read-time conditional sections: ``<IfModule>``, ``<IfDefine>``,
``<IfVersion>``, ``<IfFile>``, ``<IfDirective>``, ``<IfSection>``.

Apache evaluates these while it reads a file (they are EXEC_ON_READ): the body
of a false one is skipped unread.  A leading ``!`` negates (for IfVersion, ``!``
prefixes the operator).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pcre2

from confmig.apache.modules import ModuleSet

CONDITIONAL_SECTIONS = frozenset(
    {"ifmodule", "ifdefine", "ifversion", "iffile", "ifdirective", "ifsection"})

DEFAULT_VERSION = (2, 4, 71)


class ConditionError(Exception):
    """A conditional section Apache itself refuses to read (its message)."""


@dataclass
class ReadState:
    """What read-time conditions depend on; Define/LoadModule update it as reading goes on."""

    defines: set[str] = field(default_factory=set)
    variables: dict[str, str] = field(default_factory=dict)
    modules: ModuleSet = field(default_factory=ModuleSet.debian_default)
    version: tuple[int, int, int] = DEFAULT_VERSION
    server_root: Path = field(default_factory=Path.cwd)
    # The process environment ``${NAME}`` is read from (``load_config`` sets the server's,
    # envvars included, and the server's .htaccess files read it too); None: this process's.
    environ: Mapping[str, str] | None = None


def evaluate(lname: str, args_text: str, args: list[str], state: ReadState) -> bool:
    """Whether the body of the conditional section ``lname`` is read."""
    if lname == "ifversion":
        return _if_version(args, state.version)
    negate = args_text.startswith("!")
    words = args
    if negate:
        words = list(args)
        words[0] = words[0][1:]
        if not words[0]:
            words = words[1:]
    if not words or not words[0]:
        raise ConditionError(f"<{lname}> directive requires additional arguments")
    name = words[0]
    if lname == "ifmodule":
        result = state.modules.has(name)
    elif lname == "ifdefine":
        result = name in state.defines
    elif lname == "iffile":
        path = Path(name)
        # (apr_stat failing for any reason, a name over NAME_MAX too: not there)
        result = os.path.exists(path if path.is_absolute() else state.server_root / path)
    elif lname == "ifdirective":
        result = directive_exists(name, state.modules)
    elif lname == "ifsection":
        result = directive_exists("<" + name, state.modules)
    else:
        raise ValueError(lname)
    return result != negate


def directive_exists(name: str, modules: ModuleSet) -> bool:
    """Whether a loaded module provides directive ``name`` (ap_exists_directive)."""
    return modules.has_directive(name)


def _compare(version: tuple[int, int, int], text: str) -> int:
    parts = text.split(".")
    if not text[:1].isdigit() or len(parts) > 3 or not all(p.isdigit() for p in parts):
        raise ConditionError("Version appears to be invalid. It must have the format "
                             "major[.minor[.patch]] where major, minor and patch are numbers.")
    wanted = tuple(int(p) for p in parts) + (0,) * (3 - len(parts))
    return (version > wanted) - (version < wanted)


def _if_version(args: list[str], version: tuple[int, int, int]) -> bool:
    """mod_version's rules: ``[!][op] version``; op one of = == < <= > >= ~; /re/ is a regex."""
    if not args or len(args) > 2:
        raise ConditionError("<IfVersion> takes one or two arguments")
    op, wanted = ("=", args[0]) if len(args) == 1 else (args[0], args[1])
    reverse = op.startswith("!")
    if reverse and len(op) > 1:
        op = op[1:]
    version_text = ".".join(map(str, version))
    if op in ("=", "==") and wanted.startswith("/"):
        if len(wanted) < 2 or not wanted.endswith("/"):
            raise ConditionError("Missing delimiting / of regular expression.")
        op, wanted = "~", wanted[1:-1]
    if op == "~":
        try:
            match = pcre2.compile(wanted).search(version_text) is not None
        except pcre2.PatternError as exc:
            raise ConditionError(f"Invalid regular expression {wanted!r}: {exc}") from exc
    elif op in ("=", "=="):
        match = _compare(version, wanted) == 0
    elif op in ("<", "<="):
        cmp = _compare(version, wanted)
        match = cmp == -1 or (op == "<=" and cmp == 0)
    elif op in (">", ">="):
        cmp = _compare(version, wanted)
        match = cmp == 1 or (op == ">=" and cmp == 0)
    else:
        raise ConditionError(f"unrecognized operator '{op}'")
    return match != reverse
