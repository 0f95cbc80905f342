"""What a conversion assumes about the server: loaded modules and read-time state.

Without ``--config`` the modules are those ``confmig.servers.ApacheServer`` starts by default
(and ``confmig verify`` runs): Debian's default set plus mod_rewrite, mod_headers and
mod_expires, which real ``.htaccess`` files lean on.  With ``--config`` they are the
configuration's own (``LoadModule``, or Debian's default set where it loads none).
"""

from __future__ import annotations

from dataclasses import dataclass

from confmig.apache.modules import ModuleSet
from confmig.load import LoadedConfig, ReadState
from confmig.servers import ALWAYS_ADDED_MODULES, module_short_name

ASSUMED_EXTRA = tuple(f"mod_{name}" for name in ALWAYS_ADDED_MODULES)


@dataclass
class Env:
    """Modules and read-time state (Defines, ServerRoot) in force for the access files."""

    state: ReadState
    assumed: bool

    @property
    def modules(self) -> ModuleSet:
        return self.state.modules

    def loaded(self, module: str) -> bool:
        """Is the module the manual calls *module* (``mod_rewrite``, ``core``) loaded?"""
        return self.modules.has_module(module)

    def server_module_names(self) -> list[str]:
        """Short names (``rewrite``) to start a test server with the same modules."""
        names = []
        for ident in self.modules:
            if ident.static:
                continue
            stem = ident.shared_object or ident.identifier
            names.append(module_short_name(stem))
        return sorted(set(names))

    def describe(self) -> str:
        names = sorted(i.name for i in self.modules if not i.static)
        return ", ".join(names)


def assumed_env(defines: set[str] | None = None) -> Env:
    modules = ModuleSet.debian_default()
    for name in ASSUMED_EXTRA:
        modules.add(name)
    return Env(ReadState(defines=set(defines or ()), modules=modules), assumed=True)


def config_env(config: LoadedConfig) -> Env:
    return Env(config.state, assumed=False)
