"""Lint settings: which rules run, from ``[tool.confmig]`` / ``.confmig.toml`` and the command line.

Selection works as ruff's: a selector is ``ALL``, a prefix (``RW``, ``SYN00``)
or a full code; the most specific selector that matches a code decides, and on
a tie ``ignore`` wins.  The settings file is the first of ``.confmig.toml``
(keys at top level) or ``pyproject.toml`` with a ``[tool.confmig]`` table,
looking in the linted path's directory and then upward.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

CONFIG_NAMES = (".confmig.toml", "pyproject.toml")
KNOWN_KEYS = frozenset({"select", "ignore", "extend-select", "extend-ignore", "per-file-ignores",
                        "cache", "cache-dir"})
ALWAYS_ON = frozenset({"SYN001"})  # a parse error is never "no issues found"


class SettingsError(Exception):
    """Bad settings (unknown key or selector, unreadable TOML): a usage error."""


def _selector_len(selector: str, code: str) -> int | None:
    if selector == "ALL":
        return 0
    return len(selector) if code.startswith(selector) else None


def _best(selectors: tuple[str, ...], code: str) -> int | None:
    lengths = [n for s in selectors if (n := _selector_len(s, code)) is not None]
    return max(lengths) if lengths else None


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    cache: bool = True
    cache_dir: Path | None = None
    root: Path | None = None          # directory of the settings file (the project root)
    source: Path | None = None        # the settings file itself
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def enabled(self, code: str) -> bool:
        if code in ALWAYS_ON:
            return True
        chosen = _best(self.select + self.extend_select, code)
        if chosen is None:
            return False
        ignored = _best(self.ignore, code)
        return ignored is None or chosen > ignored

    def ignored_for_file(self, code: str, path: str) -> bool:
        """``per-file-ignores``: glob (relative to the project root, or a bare file name)."""
        if not self.per_file_ignores or code in ALWAYS_ON:
            return False
        rel = path
        if self.root is not None:
            try:
                rel = str(Path(path).resolve().relative_to(self.root.resolve()))
            except ValueError:
                rel = path
        name = Path(path).name
        for pattern, codes in self.per_file_ignores:
            matched = fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, pattern)
            if matched and any(_selector_len(c, code) is not None for c in codes):
                return True
        return False

    def key(self) -> str:
        """A digest of everything here that changes which findings are reported."""
        import hashlib  # (here: only the cache asks, issue 17)

        data = [self.select, self.ignore, self.extend_select, self.per_file_ignores]
        return hashlib.blake2b(json.dumps(data).encode(), digest_size=8).hexdigest()

    def with_cli(self, select: list[str] | None = None, ignore: list[str] | None = None,
                 extend_select: list[str] | None = None, cache: bool | None = None) -> Settings:
        """Command-line options over file settings: ``--select`` replaces, the others add.
        An option given with nothing in it (``--select ''``) is a usage error, never "no
        rule at all"."""
        out = self
        if select:
            out = replace(out, select=_given("--select", select), extend_select=())
        if ignore:
            out = replace(out, ignore=out.ignore + _given("--ignore", ignore))
        if extend_select:
            out = replace(out, extend_select=out.extend_select
                          + _given("--extend-select", extend_select))
        if cache is not None:
            out = replace(out, cache=cache)
        return out

    def validate(self, known_codes: list[str]) -> None:
        """Every selector must name ``ALL``, a code or a prefix of one."""
        selectors = list(self.select + self.ignore + self.extend_select)
        selectors += [c for _, codes in self.per_file_ignores for c in codes]
        for selector in selectors:
            if selector != "ALL" and not any(c.startswith(selector) for c in known_codes):
                raise SettingsError(f"unknown rule selector {selector!r} "
                                    "(see `confmig rules` for the codes)")


def _given(option: str, values: list[str]) -> tuple[str, ...]:
    codes = _split(values)
    if not codes:
        raise SettingsError(f"{option} {' '.join(repr(v) for v in values)}: give rule codes or "
                            "prefixes (e.g. RW,SEC001; `confmig rules` lists them)")
    return codes


def _split(values: list[str] | tuple[str, ...] | str) -> tuple[str, ...]:
    """``["RW,SEC", "DUP"]`` → ``("RW", "SEC", "DUP")``, upper-cased."""
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        out += [v.strip().upper() for v in value.split(",") if v.strip()]
    return tuple(out)


def find_settings_file(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``.confmig.toml`` or ``pyproject.toml`` with ``[tool.confmig]``."""
    start = start.resolve()
    directory = start if start.is_dir() else start.parent
    for folder in (directory, *directory.parents):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if not candidate.is_file():
                continue
            data = _read_toml(candidate)
            if name == "pyproject.toml":
                table = data.get("tool", {}).get("confmig")
                if table is None:
                    continue
                return candidate, table
            return candidate, data
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # (only where a settings file is found: most runs have none)

    try:
        data = path.read_bytes()
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:  # (TOML is UTF-8: the line of the first other byte)
        line = data.count(b"\n", 0, exc.start) + 1
        raise SettingsError(f"{path}:{line}: not UTF-8 text, as TOML must be "
                            f"(byte 0x{data[exc.start]:02x}: {exc.reason})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: invalid TOML: {exc}") from exc
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror}") from exc


def _codes(table: dict[str, Any], key: str, source: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{source}: {key} must be a list of rule codes or prefixes")
    return _split(value)


def settings_from_table(table: dict[str, Any], source: Path) -> Settings:
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise SettingsError(f"{source}: unknown setting(s) {', '.join(unknown)} "
                            f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise SettingsError(f"{source}: per-file-ignores must be a table of glob = [codes]")
    cache = table.get("cache", True)
    if not isinstance(cache, bool):
        raise SettingsError(f"{source}: cache must be true or false")
    cache_dir = table.get("cache-dir")
    return Settings(
        select=_codes(table, "select", source) or ("ALL",),
        ignore=_codes(table, "ignore", source) + _codes(table, "extend-ignore", source),
        extend_select=_codes(table, "extend-select", source),
        per_file_ignores=tuple((glob, _codes(pfi, glob, source)) for glob in sorted(pfi)),
        cache=cache,
        cache_dir=(source.parent / cache_dir) if isinstance(cache_dir, str) else None,
        root=source.parent,
        source=source,
    )


def load_settings(start: Path | None) -> Settings:
    """Settings for linting ``start`` (defaults when no settings file is found)."""
    if start is None:
        return Settings()
    found = find_settings_file(start)
    if found is None:
        return Settings()
    source, table = found
    return settings_from_table(table, source)
