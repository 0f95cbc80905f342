"""The AllowOverride / AllowOverrideList in force for one directory's ``.htaccess``.

How one ``AllowOverride`` line reads is :class:`confmig.apache.registry.AllowOverride`, and
which ``<Directory>`` sections decide it is the model's directory walk (asked by
:meth:`confmig.convert.httpd.layout.Layout.in_force`); this module adds which lines of the
config decided it, for the conversion's notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from confmig.apache.registry import AllowOverride, override_list
from confmig.model.merge.core import read_options


@dataclass(frozen=True)
class InForce:
    """What a directory's ``.htaccess`` may do, and which lines of the config decided it."""

    allow: AllowOverride = field(default_factory=lambda: AllowOverride.parse(["All"]))
    words: tuple[str, ...] = ("All",)
    listed_words: tuple[str, ...] = ()
    source: str = "assumed"

    @classmethod
    def assumed_all(cls) -> InForce:
        return cls(source="assumed (no --config): AllowOverride All")

    @classmethod
    def default_none(cls) -> InForce:
        return cls(AllowOverride.parse(["None"]), ("None",), (),
                   "Apache's default: AllowOverride None")

    @property
    def listed(self) -> frozenset[str]:
        return override_list(self.listed_words) if self.listed_words else frozenset()

    @property
    def reads_htaccess(self) -> bool:
        """False when Apache never opens the file (``AllowOverride None`` and no list)."""
        return self.allow.reads_htaccess or bool(self.listed)

    @property
    def nonfatal_override(self) -> bool:
        return "Override" in self.allow.nonfatal

    @property
    def nonfatal_unknown(self) -> bool:
        return "Unknown" in self.allow.nonfatal

    def describe(self) -> str:
        text = "AllowOverride " + " ".join(self.words)
        if self.listed_words:
            text += "; AllowOverrideList " + " ".join(self.listed_words)
        return text

    def with_allow_override(self, args: list[str], source: str) -> InForce:
        try:
            allow = AllowOverride.parse(args)
        except ValueError:
            return self  # Apache refuses to start with such a line; lint reports it
        return InForce(allow, tuple(args) or ("None",), self.listed_words, source)

    def with_allow_override_list(self, args: list[str]) -> InForce:
        words = () if [a.lower() for a in args] == ["none"] else tuple(args)
        return InForce(self.allow, self.words, words, self.source)


def options_problem(args: list[str], allow: AllowOverride) -> str | None:
    """Apache's error for an ``Options`` line of an ``.htaccess`` (``set_options``), or None:
    the model's Options handler (:func:`confmig.model.merge.core.read_options`) with the
    options *allow* lets an ``.htaccess`` set.

    The syntax errors (mixing ``+``/``-`` with plain keywords, ``None``/``All`` not first, an
    unknown keyword) stop a server config from loading as well, so they matter for the moved
    ``<Directory>`` block too; ``not allowed here`` comes from the ``Options=`` list.
    """
    read = read_options(args, override_opts=allow.override_opts)
    return read if isinstance(read, str) else None
