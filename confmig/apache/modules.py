"""Module identities, and which modules are loaded as ``<IfModule>`` sees it.

Apache knows a module by two names.  Its *source file* (``mod_rewrite.c``) is the ``name``
of the module struct -- ``__FILE__`` where the struct is defined, basename kept -- and its
*identifier* (``rewrite_module``) is the exported symbol ``LoadModule`` names.
``<IfModule x>`` is true when *x* equals either name of a loaded module, compared with
``strcmp``: exact case, no ``.so``, no bare ``mod_rewrite``.  The manual calls modules by a
third name (``mod_rewrite``, ``core``, ``event``) that ``<IfModule>`` does not accept.
(``server/core.c`` find_module: ``ap_find_linked_module`` compares the module struct's
``name`` -- ``__FILE__`` with its directories stripped by ``ap_add_module`` -- then the
prelinked symbols, then mod_so's ``ap_find_loaded_module_symbol`` the identifier each
``LoadModule`` named.)

A module confmig has no facts for (a vendor's ``foo_module``) is loaded all the same: its
identity is guessed from the names it was given (``foo_module`` <-> ``mod_foo.c``, which is
how nearly every module is written; checked on Apache with mod_wsgi) and marked ``unknown``.
Its directives cannot be told from typos; :meth:`ModuleSet.not_modelled` says what confmig
knows about a directive that is accepted but not modelled.

Most modules follow ``mod_X.c`` / ``X_module``; the irregular ones include mod_ldap
(``util_ldap.c``), the MPMs (``event.c`` / ``mpm_event_module``), http_core
(``http_core.c`` / ``http_module``), PHP (``mod_php.c`` / ``php_module`` for PHP 8,
``mod_php7.c`` / ``php7_module``) and PageSpeed (``mod_instaweb.cc`` / ``pagespeed_module``).

Data: ``data/modules.json`` (read from Debian's apache2 2.4.71 shared objects and checked
with ``<IfModule>`` on the real server), ``data/third_party.json`` (``modules`` and
``misnames``) and ``data/debian_modules.json``; all generated or curated by
``tools/gen_registry.py``, never read from ``/etc`` at run time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath
from typing import Any

from confmig.apache import data_text
from confmig.apache.registry import registry


@dataclass(frozen=True, slots=True)
class ModuleIdentity:
    """One module's names.

    ``name`` is the manual's (``mod_rewrite``), ``source`` the ``<IfModule>`` file name
    (None when unknown), ``identifier`` the ``LoadModule`` symbol.  ``static``: compiled
    into Debian's apache2; ``available``: Debian's apache2 ships it.
    """

    name: str
    identifier: str
    source: str | None
    shared_object: str | None = None
    static: bool = False
    available: bool = False
    third_party: bool = False
    verified: str | None = None
    note: str | None = None
    unknown: bool = False

    @property
    def spellings(self) -> tuple[str, ...]:
        """The names ``<IfModule>`` matches this module by."""
        return tuple(n for n in (self.source, self.identifier) if n)

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> ModuleIdentity:
        return cls(
            name=row["name"], identifier=row["identifier"], source=row["source"],
            shared_object=row.get("shared_object"), static=row.get("static", False),
            available=row.get("available", False), third_party=row.get("third_party", False),
            verified=row.get("verified"), note=row.get("note"),
        )


def _data(name: str) -> Any:
    return json.loads(data_text(name))


@cache
def identities() -> tuple[ModuleIdentity, ...]:
    """Every known module: Apache's (shipped by Debian or not) and common third-party ones."""
    rows = _data("modules.json")["modules"] + _data("third_party.json")["modules"]
    return tuple(ModuleIdentity.from_json(row) for row in rows)


@cache
def _index() -> dict[str, ModuleIdentity]:
    """Lower-cased spelling -> identity, for recognition (not for ``<IfModule>``)."""
    index: dict[str, ModuleIdentity] = {}
    for ident in identities():
        names = [ident.name, ident.identifier, ident.source, ident.shared_object]
        for spelling in filter(None, names):
            index.setdefault(spelling.lower(), ident)
    return index


def lookup(name: str) -> ModuleIdentity | None:
    """The module *name* refers to, by any of its names in any case (``mod_rewrite``,
    ``mod_rewrite.c``, ``rewrite_module``, ``mod_rewrite.so``, ``Mod_Rewrite.C``).

    For recognising what a file means; whether Apache would agree is :meth:`ModuleSet.has`.
    """
    return _index().get(name.strip().lower())


_SHORT = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")


def unknown_identity(name: str, path: str | None = None) -> ModuleIdentity:
    """The identity of a module confmig has no facts for, guessed from *name* (an identifier
    ``foo_module``, a source file ``mod_foo.c`` or a manual name ``mod_foo``) and, for
    ``LoadModule``, the shared object *path*.

    ``<IfModule>`` then answers to ``foo_module`` and ``mod_foo.c``: a module's struct is
    named ``foo_module`` and defined in ``mod_foo.c`` by the convention nearly every module
    follows (mod_wsgi: ``wsgi_module`` in ``src/server/mod_wsgi.c``).  A lower-case word is
    Debian's short name (``foo``, as in ``mods-enabled/foo.load``); any other name is taken
    as the identifier, with no source file.
    """
    name = name.strip()
    shared = PurePath(path).name if path else None
    stem = shared.split(".", 1)[0] if shared else None
    if name.endswith("_module") and len(name) > len("_module"):
        identifier = name
        base = name.removesuffix("_module")
        source = f"{stem}.c" if stem and stem.startswith("mod_") else f"mod_{base}.c"
    elif name.startswith("mod_") and len(name) > len("mod_"):
        base = name.split(".", 1)[0]
        source = name if name.endswith((".c", ".cc", ".cpp")) else f"{base}.c"
        identifier = f"{base.removeprefix('mod_')}_module"
    elif _SHORT.fullmatch(name):  # Debian's short name, as in mods-enabled/foo.load
        identifier, source = f"{name}_module", f"mod_{name}.c"
    else:
        identifier, source = name, None
    manual = source.split(".", 1)[0] if source else name
    return ModuleIdentity(
        name=manual, identifier=identifier, source=source,
        shared_object=shared or (f"{manual}.so" if source else None), third_party=True,
        note="unknown module: confmig has no facts for it; its <IfModule> names are guessed "
             "from the names it was given", unknown=True,
    )


@cache
def _has_directive_facts(module: str) -> bool:
    return bool(registry().for_module(module))


def misname_hint(name: str) -> str | None:
    """What an ``<IfModule>`` argument that names no module was probably meant to be, for
    names seen in real files (``mod_php8.c``: PHP 8's module is ``mod_php.c``)."""
    hints: dict[str, str] = _data("third_party.json")["misnames"]
    return hints.get(name)


@cache
def debian_default_modules() -> frozenset[str]:
    """Identifiers of the modules Debian's apache2 2.4 loads as installed: the compiled-in
    ones (core, so, watchdog, http, log_config, logio, version, unixd) and those its
    postinst enables (mpm_event, authz_core, mime, ...).  Stored data, not ``/etc``."""
    return frozenset(_data("debian_modules.json")["modules"])


class ModuleSet:
    """A set of loaded modules, answering ``<IfModule>`` the way Apache does."""

    def __init__(self, modules: Iterable[str | ModuleIdentity] = ()) -> None:
        self._loaded: dict[str, ModuleIdentity] = {}  # identifier -> identity
        # What <IfModule> and the registry ask (every spelling, every manual name), made
        # again after any change: a config asks it once per <IfModule>.
        self._index: tuple[frozenset[str], frozenset[str]] | None = None
        for module in modules:
            self.add(module)

    @classmethod
    def debian_default(cls) -> ModuleSet:
        """Debian's default set (:func:`debian_default_modules`)."""
        return cls(sorted(debian_default_modules()))

    @classmethod
    def compiled_in(cls) -> ModuleSet:
        """Only the modules compiled into Debian's apache2 (what an empty config has)."""
        return cls(i for i in identities() if i.static)

    def add(self, module: str | ModuleIdentity) -> ModuleIdentity:
        """Mark a module loaded; *module* is an identity, any of its names or Debian's short
        name (``rewrite``).  A name no known module has is loaded all the same, as
        :func:`unknown_identity`."""
        if isinstance(module, ModuleIdentity):
            ident = module
        else:
            ident = lookup(module)
            if ident is None and _SHORT.fullmatch(module):  # mods-enabled/<short>.load
                ident = lookup(f"{module}_module") or lookup(f"mod_{module}.so")
            ident = ident or unknown_identity(module)
        self._index = None
        return self._loaded.setdefault(ident.identifier, ident)

    def add_loadmodule(self, identifier: str, path: str) -> ModuleIdentity:
        """Record ``LoadModule identifier path``.

        The identifier is taken as written (it is the symbol Apache looks up, so its case
        matters).  For a module this registry does not know, its source file name cannot be
        read without the shared object; it is guessed (:func:`unknown_identity`: from the
        file name, ``mod_foo.so`` -> ``mod_foo.c``, else from the identifier) and the
        identity says so in ``note``.  Loading an already loaded module changes nothing
        (Apache: "module ... is already loaded, skipping").
        """
        if identifier in self._loaded:
            return self._loaded[identifier]
        known = next((i for i in identities() if i.identifier == identifier), None)
        if known is None:
            known = unknown_identity(identifier, path)
        self._index = None
        self._loaded[identifier] = known
        return known

    def discard(self, module: str) -> None:
        """Forget a module named by its identifier or source file, if loaded."""
        self._index = None
        for key, ident in list(self._loaded.items()):
            if module in ident.spellings:
                del self._loaded[key]

    def has(self, name: str) -> bool:
        """``<IfModule name>``: *name* is the source file or the identifier of a loaded
        module, exact case.  A leading ``!`` is not handled here (it negates the section)."""
        return name in self._names()[0]

    def has_module(self, module: str) -> bool:
        """Is the module the manual calls *module* (``mod_rewrite``, ``core``, ``event``)
        loaded?  For registry lookups: :attr:`DirectiveInfo.modules` holds such names."""
        return module in self._names()[1]

    def _names(self) -> tuple[frozenset[str], frozenset[str]]:
        """(every <IfModule> spelling, every manual name) of the loaded modules."""
        if self._index is None:
            loaded = self._loaded.values()
            self._index = (frozenset(n for i in loaded for n in i.spellings),
                           frozenset(i.name for i in loaded))
        return self._index

    def has_directive(self, name: str) -> bool:
        """``<IfDirective name>``: does a loaded module define *name*?  Section names take
        their ``<`` (``<Files``), as Apache's command table has them."""
        return any(self.has_module(m) for info in registry().get_exact(name)
                   for m in info.modules)

    @property
    def without_facts(self) -> tuple[ModuleIdentity, ...]:
        """Loaded modules whose directives confmig has no facts for: unknown ones, and
        third-party ones the registry lists no directive of (mod_fcgid, mod_lsapi)."""
        return tuple(i for i in self._loaded.values()
                     if i.third_party and (i.unknown or not _has_directive_facts(i.name)))

    def not_modelled(self, directive: str) -> str | None:
        """Why confmig cannot say what *directive* does here, or None.

        A third-party directive whose module is loaded (``WSGIScriptAlias`` with mod_wsgi,
        ``php_value`` with mod_php) is known to exist -- where it may appear comes from the
        registry -- but its effect is not modelled.  A name no module in the registry
        defines, while a module without facts is loaded, may be that module's: not
        modelled either (without such a module it is Apache's "Invalid command").  None for
        Apache's own directives and for a directive whose module is not loaded.
        """
        infos = registry().get_all(directive)
        loaded = [i for i in infos if any(self.has_module(m) for m in i.modules)]
        if loaded:
            if all(i.third_party for i in loaded):
                return f"{loaded[0].name} ({loaded[0].module}): known to exist, not modelled"
            return None
        blind = [i.identifier for i in self.without_facts if i.identifier]
        if infos or not blind:
            return None
        return (f"{directive}: unknown to confmig; loaded {', '.join(sorted(blind))}, which "
                f"confmig has no facts for, may define it: not modelled")

    def copy(self) -> ModuleSet:
        return ModuleSet(self._loaded.values())

    @property
    def identifiers(self) -> frozenset[str]:
        return frozenset(self._loaded)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.has(name)

    def __iter__(self) -> Iterator[ModuleIdentity]:
        return iter(self._loaded.values())

    def __len__(self) -> int:
        return len(self._loaded)

    def __repr__(self) -> str:
        return f"ModuleSet({sorted(self._loaded)})"
