"""RewriteMap: parsing of the map definition and lookups for the map types we can model.

Modelled: ``txt:`` (and a bare path), ``rnd:`` and ``int:`` (``toupper``, ``tolower``,
``escape``, ``unescape``).  A ``rnd:`` value with several alternatives is picked with the
caller's random generator when given, else the first is taken and reported as unsupported
(Apache picks at random: the answer is not decided by the configuration).

``dbm:``, ``prg:``, ``dbd:`` and ``fastdbd:`` are recognised; a lookup in them is reported as
unsupported and behaves as "key not found" (so the ``|default`` applies, as it would in
Apache when the lookup fails).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass

from confmig.model.rewrite.uri import escape_uri, unescape_url

_INTERNAL: dict[str, Callable[[str], str]] = {
    # ap_str_toupper / ap_str_tolower fold ASCII only.
    "toupper": lambda key: key.translate(_UPPER),
    "tolower": lambda key: key.translate(_LOWER),
    "escape": escape_uri,
    "unescape": lambda key: unescape_url(key)[0],
}
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TXT_MAX_LINE = 1024  # REWRITE_MAX_TXT_MAP_LINE
_cache: dict[str, tuple[float, dict[str, str]]] = {}


@dataclass(frozen=True, slots=True)
class RewriteMap:
    """One ``RewriteMap name type:source`` definition."""

    name: str
    kind: str  # "txt", "rnd", "int", "dbm", "prg", "dbd", "fastdbd"
    source: str  # file path (resolved against ServerRoot when given), function, program or query

    @property
    def supported(self) -> bool:
        return self.kind in ("txt", "rnd", "int")

    def entries(self) -> dict[str, str] | None:
        """A ``txt:``/``rnd:`` map's table as ``lookup_map_txtfile`` reads it (key → value,
        the first line of a key wins); None for another kind or a file that cannot be read."""
        return _load_txt(self.source) if self.kind in ("txt", "rnd") else None

    def lookup(self, key: str, rng: random.Random | None = None) -> tuple[str | None, str | None]:
        """``(value or None, why it is unsupported or None)``; an empty value counts as missing."""
        if self.kind == "int":
            return _INTERNAL[self.source](key) or None, None
        if self.kind in ("txt", "rnd"):
            table = _load_txt(self.source)
            if table is None:
                return None, f"RewriteMap {self.name}: cannot read {self.source}"
            value = table.get(key)
            if value and self.kind == "rnd" and "|" in value:
                parts = value.split("|")
                if rng is not None:  # the caller simulates Apache's random pick
                    return rng.choice(parts) or None, None
                # Apache picks at random: the model takes the first and says so.
                return parts[0] or None, (
                    f"RewriteMap {self.name}: rnd: {key!r} has {len(parts)} alternatives, "
                    f"one picked at random (the model assumes the first, {parts[0]!r})")
            return value or None, None
        return None, f"RewriteMap {self.name}: {self.kind} maps are not modelled"


def parse_map(name: str, spec: str, options: str | None,
              server_root: str | None) -> tuple[RewriteMap | None, str | None]:
    """``cmd_rewritemap``: ``(map or None, message)``; no map means Apache rejects it."""
    low = spec.lower()

    def path(p: str) -> str:
        if server_root and not os.path.isabs(p):
            return os.path.join(server_root, p)
        return p

    if low.startswith(("txt:", "rnd:")):
        return RewriteMap(name, low[:3], path(spec[4:])), None
    if low.startswith("dbm"):
        if spec[3:4] == ":":
            return RewriteMap(name, "dbm", path(spec[4:])), "RewriteMap dbm: lookups not modelled"
        if spec[3:4] == "=" and ":" in spec[4:]:
            file = spec[4:].split(":", 1)[1]
            return RewriteMap(name, "dbm", path(file)), "RewriteMap dbm: lookups not modelled"
        return None, f"RewriteMap: bad map:{spec}"
    if low.startswith("dbd:") or low.startswith("fastdbd:"):
        kind, query = spec.split(":", 1)
        return (RewriteMap(name, kind.lower(), query),
                "RewriteMap dbd/fastdbd needs mod_dbd; lookups not modelled")
    if low.startswith("prg:"):
        return RewriteMap(name, "prg", spec[4:]), "RewriteMap prg: lookups not modelled"
    if low.startswith("int:"):
        func = spec[4:]
        if func not in _INTERNAL:
            return None, f"RewriteMap: internal map not found:{func}"
        return RewriteMap(name, "int", func), None
    return RewriteMap(name, "txt", path(spec)), None


def _load_txt(file: str) -> dict[str, str] | None:
    """Parse a txt map as ``lookup_map_txtfile`` reads it (first matching line wins)."""
    try:
        mtime = os.stat(file).st_mtime
    except OSError:
        return None
    cached = _cache.get(file)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    table: dict[str, str] = {}
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    for raw in data.split(b"\n"):
        line = raw[:_TXT_MAX_LINE - 1].decode("utf-8", "surrogateescape")
        if not line or line[0] == "#" or line[0].isspace():
            continue
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] not in table:
            table[parts[0]] = parts[1]
    _cache[file] = (mtime, table)
    return table
