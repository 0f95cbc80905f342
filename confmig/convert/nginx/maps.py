"""The ``map``/``geo`` blocks a server needs in the ``http { }`` context, each once."""

from __future__ import annotations

from confmig.convert.nginx.rewrite import q


class HttpMaps:
    """Numbered variables (``$<prefix>N``) for ``map`` and ``geo`` blocks, one per distinct
    definition, and the text of those blocks (``blocks``, in order of first use)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.blocks: list[str] = []
        self._names: dict[tuple[str, ...], str] = {}

    def _name(self, key: tuple[str, ...]) -> tuple[str, bool]:
        name = self._names.get(key)
        if name is not None:
            return name, False
        name = self._names[key] = f"${self.prefix}{len(self._names) + 1}"
        return name, True

    def geo(self, networks: tuple[str, ...]) -> str:
        """A ``geo`` variable: 1 for a client in *networks*, else 0."""
        name, new = self._name(("geo", *networks))
        if new:
            self.blocks.extend([f"geo {name} {{", "    default 0;",
                                *(f"    {n} 1;" for n in networks), "}"])
        return name

    def map(self, source: str, rows: list[tuple[str, str]], default: str) -> str:
        """A ``map`` of *source*: the value of the first row whose key matches."""
        name, new = self._name((source, default, *(f"{k}\0{v}" for k, v in rows)))
        if new:
            # volatile: computed again after an internal redirect (index, error_page,
            # rewrite … last), as Apache checks the new URL again
            self.blocks += [f"map {source} {name} {{", "    volatile;",
                            *(f"    {q(k)} {v};" for k, v in rows),
                            f"    default {default};", "}"]
        return name
