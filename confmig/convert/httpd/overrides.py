"""The AllowOverride / AllowOverrideList in force for one directory's ``.htaccess``.

How one ``AllowOverride`` line reads is :class:`confmig.model.registry.AllowOverride`; this
module adds where it comes from.  ``ap_directory_walk`` (``server/request.c``) merges, for each
directory level, the matching non-regex ``<Directory>`` sections — shortest path first, ties in
config order, the main server's before the ``<VirtualHost>``'s — and then reads that level's
``.htaccess`` with the ``AllowOverride`` (and its ``Options=`` list) of the last section that set
one, and the ``AllowOverrideList`` of the last section that set that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from confmig.model.registry import AllowOverride, override_list

_OPTION_KEYWORDS = frozenset({
    "indexes", "includes", "includesnoexec", "followsymlinks", "symlinksifownermatch",
    "execcgi", "multiviews", "runscripts", "none", "all",
})


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
    """Apache's error for an ``Options`` line of an ``.htaccess`` (``set_options``), or None.

    The syntax errors (mixing ``+``/``-`` with plain keywords, ``None``/``All`` not first, an
    unknown keyword) stop a server config from loading as well, so they matter for the moved
    ``<Directory>`` block too; ``not allowed here`` comes from the ``Options=`` list.
    """
    first, merge, all_none = True, False, False
    for word in args:
        name = word[1:] if word[:1] in "+-" else word
        if word[:1] in "+-":
            if not merge and not first and not all_none:
                return "Either all Options must start with + or -, or no Option may."
            merge = True
        elif merge:
            return "Either all Options must start with + or -, or no Option may."
        lower = name.lower()
        if lower not in _OPTION_KEYWORDS:
            return f"Illegal option {name}"
        if lower in ("none", "all"):
            if not first:
                return f"'Options {name}' must be the first Option given."
            if merge:
                return f"You may not use 'Options {word}'."
            all_none = True
        if not allow.permits_option(name):
            return f"Option {name} not allowed here"
        first = False
    return None
