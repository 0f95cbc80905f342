"""The directive registry: what Apache httpd 2.4.71 accepts, where, and under which AllowOverride.

Data: ``data/directives.json`` (every directive of the 2.4.71 manual; the AllowOverride
classes, the ``.htaccess`` context and AllowOverrideList behaviour checked against a real
Apache where ``verified`` says so -- see ``tools/gen_registry.py``) and
``data/third_party.json`` (mod_php, ModSecurity, PageSpeed, LiteSpeed directives that real
``.htaccess`` files carry; from each project's source or documentation, not verified).

Names are case-insensitive, as in Apache.  Sections are named with their bracket
(``<Files>``); :meth:`Registry.get` also takes ``<Files``, and a bare ``Files`` when no plain
directive has that name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from confmig.apache import data_text

CONTEXTS = ("server config", "virtual host", "directory", ".htaccess")
OVERRIDE_CLASSES = frozenset({"AuthConfig", "FileInfo", "Indexes", "Limit", "Options"})


@dataclass(frozen=True, slots=True)
class DirectiveInfo:
    """One directive as one module defines it.

    ``module`` is the manual's module name (``mod_rewrite``, ``core``, ``event``, or a
    third-party ``mod_php``); ``modules`` lists every module defining it (MPM directives
    have several).  ``override_classes`` are the AllowOverride classes *any one of which*
    lets it through in ``.htaccess`` (Apache tests ``req_override & AllowOverride``; the
    data's ``All`` is expanded to all five); empty when it is not allowed in ``.htaccess``,
    or, for a third-party directive that is, when the class is unknown.  ``listable``: Apache
    honours it in ``.htaccess`` when ``AllowOverrideList`` names it (None: not checked).
    ``verified`` names the server the override facts were checked against
    (``"Apache/2.4.71"``), None when they come from documentation only.
    """

    name: str
    module: str
    modules: tuple[str, ...]
    contexts: frozenset[str]
    override_classes: frozenset[str]
    section: bool
    syntax: str
    default: str | None
    status: str
    third_party: bool = False
    listable: bool | None = None
    verified: str | None = None
    note: str | None = None
    shadows: str | None = None

    @property
    def allowed_in_htaccess(self) -> bool:
        return ".htaccess" in self.contexts

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> DirectiveInfo:
        classes = frozenset(entry["override_classes"])
        if "All" in classes:
            classes = OVERRIDE_CLASSES
        return cls(
            name=entry["name"],
            module=entry["module"],
            modules=tuple(entry["modules"]),
            contexts=frozenset(entry["contexts"]),
            override_classes=classes,
            section=entry["section"],
            syntax=entry["syntax"],
            default=entry["default"],
            status=entry["status"],
            third_party=entry["third_party"],
            listable=entry.get("listable"),
            verified=entry.get("verified"),
            note=entry.get("note"),
            shadows=entry.get("shadows"),
        )


def _key(name: str) -> str:
    """``RewriteRule`` -> ``rewriterule``; ``<Files``, ``<Files>`` -> ``<files>``."""
    key = name.strip().lower()
    if key.startswith("<"):
        key = key.rstrip(">") + ">"
    return key


class Registry:
    """Directive lookups.  Where Apache and a third-party module share a name
    (``CacheEnable``: mod_cache and LiteSpeed), :meth:`get` answers with Apache's entry."""

    def __init__(self, infos: Iterable[DirectiveInfo]) -> None:
        # key -> its entries, Apache's first: DirectiveInfo, or the data file's dicts until
        # the key is first asked for (see from_entries)
        self._by_key: dict[str, list[Any]] = {}
        for info in sorted(infos, key=lambda i: i.third_party):  # Apache's entries first
            self._by_key.setdefault(_key(info.name), []).append(info)

    @classmethod
    def from_entries(cls, entries: Iterable[dict[str, Any]]) -> Registry:
        """The registry of the data files' entries, each made a :class:`DirectiveInfo` when
        its name is first looked up: a run looks up a few of the 1,100 (issue 17: making them
        all was a tenth of a lint hook's start)."""
        registry = cls(())
        for entry in sorted(entries, key=lambda e: bool(e["third_party"])):
            registry._by_key.setdefault(_key(entry["name"]), []).append(entry)
        return registry

    @classmethod
    def from_table(cls, text: str) -> Registry:
        """The registry of :func:`render_table`'s text: one line a name, its entries' JSON
        decoded when the name is first looked up (issue 17: decoding all of the data files,
        500 kB, was the largest part of a lint hook's own work)."""
        registry = cls(())
        for line in text.splitlines():
            key, _, entries = line.partition("\t")
            registry._by_key[key] = [entries]
        return registry

    def _infos(self, key: str) -> list[DirectiveInfo]:
        found = self._by_key.get(key, [])
        if found and isinstance(found[0], str):
            found[:] = json.loads(found[0])
        if found and isinstance(found[0], dict):
            found[:] = [DirectiveInfo.from_json(e) for e in found]
        return found

    def get(self, name: str) -> DirectiveInfo | None:
        found = self.get_all(name)
        return found[0] if found else None

    def get_all(self, name: str) -> tuple[DirectiveInfo, ...]:
        """Every module's entry for *name* (Apache's first)."""
        found = self.get_exact(name)
        if not found and not name.lstrip().startswith("<"):
            found = self.get_exact(f"<{name.strip()}>")
        return found

    def get_exact(self, name: str) -> tuple[DirectiveInfo, ...]:
        """Like :meth:`get_all`, without the bare-name fallback to a section: what Apache's
        own command lookup finds (``Files`` is not ``<Files``)."""
        return tuple(self._infos(_key(name)))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and bool(self.get_all(name))

    def __iter__(self) -> Iterator[DirectiveInfo]:
        for key in self._by_key:
            yield from self._infos(key)

    def __len__(self) -> int:
        return sum(len(infos) for infos in self._by_key.values())

    def allowed_in_htaccess(self, name: str) -> bool:
        """Whether some AllowOverride class lets *name* through in ``.htaccess`` (False for
        an unknown directive: Apache answers "Invalid command")."""
        info = self.get(name)
        return info is not None and info.allowed_in_htaccess

    def override_classes(self, name: str) -> frozenset[str]:
        """The classes any one of which admits *name* in ``.htaccess`` (empty if unknown)."""
        info = self.get(name)
        return info.override_classes if info is not None else frozenset()

    def modules_providing(self, name: str) -> tuple[str, ...]:
        """Every module defining *name*, Apache's first (``("mod_cache", "litespeed")``)."""
        return tuple(dict.fromkeys(m for info in self.get_all(name) for m in info.modules))

    def for_module(self, module: str) -> tuple[DirectiveInfo, ...]:
        """The directives *module* (manual name, e.g. ``mod_rewrite``) defines."""
        return tuple(info for info in self if module in info.modules)

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Known directives spelt like *name*, best first ("did you mean"); empty when
        *name* is itself known."""
        if name in self:
            return []
        import difflib  # (only for an unknown name)

        key = _key(name)
        keys = [k for k in self._by_key if k.startswith("<") == key.startswith("<")]
        matches = difflib.get_close_matches(key, keys, n=limit, cutoff=0.75)
        return [self._infos(m)[0].name for m in matches]


REGISTRY_SOURCES = ("directives.json", "third_party.json")
REGISTRY_TABLE = "registry.tsv"


@cache
def registry() -> Registry:
    """The registry of Apache 2.4.71's directives and the third-party ones (loaded once),
    read from ``data/registry.tsv``: the data files' entries by name, one line each
    (:func:`render_table`; tests/test_registry_table.py fails when it is not current)."""
    return Registry.from_table(data_text(REGISTRY_TABLE))


def source_entries() -> list[dict[str, Any]]:
    """Every entry of the data files (:data:`REGISTRY_SOURCES`), as they are written."""
    entries: list[dict[str, Any]] = []
    for name in REGISTRY_SOURCES:
        entries += json.loads(data_text(name))["directives"]
    return entries


def render_table() -> str:
    """The text of ``data/registry.tsv``: for each name (as :meth:`Registry.get` keys it),
    in :meth:`Registry.from_entries`' order, the name, a tab and the JSON list of its
    entries, Apache's first.  Regenerate it with ``python tools/gen_registry_table.py``
    after editing a data file."""
    table = Registry.from_entries(source_entries())
    return "".join(f"{key}\t{json.dumps(entries, separators=(',', ':'), sort_keys=True)}\n"
                   for key, entries in table._by_key.items())


# --- AllowOverride ---------------------------------------------------------------------

# The Options keywords and their bits (Apache's OPT_*, include/http_core.h): defined here
# once; the model's Options handler (merge/core.read_options), AllowOverride Options= and
# every consumer import them.
OPT_NONE = 0
OPT_INDEXES = 1
OPT_INCLUDES = 2
OPT_SYM_LINKS = 4
OPT_EXECCGI = 8
OPT_UNSET = 16
OPT_INC_WITH_EXEC = 32
OPT_SYM_OWNER = 64
OPT_MULTI = 128
OPT_ALL = OPT_INDEXES | OPT_INCLUDES | OPT_INC_WITH_EXEC | OPT_SYM_LINKS | OPT_EXECCGI
# What an .htaccess may set when no ``AllowOverride Options=`` restricts it
# (create_core_dir_config's override_opts).
OPT_OVERRIDE_DEFAULT = OPT_ALL | OPT_SYM_OWNER | OPT_MULTI

OPTION_BITS: dict[str, int] = {
    "indexes": OPT_INDEXES, "includes": OPT_INCLUDES | OPT_INC_WITH_EXEC,
    "includesnoexec": OPT_INCLUDES, "followsymlinks": OPT_SYM_LINKS,
    "symlinksifownermatch": OPT_SYM_OWNER, "execcgi": OPT_EXECCGI, "multiviews": OPT_MULTI,
    "runscripts": OPT_MULTI | OPT_EXECCGI,
}
# An .htaccess ``Options`` line may set a keyword only if all its bits are among those
# AllowOverride permits; ``None`` and ``All`` are keywords too (core.c set_options).
_OPT = {**OPTION_BITS, "none": OPT_NONE, "all": OPT_ALL}
OPTION_NAMES = {"indexes": "Indexes", "includes": "Includes", "includesnoexec": "IncludesNOEXEC",
                "followsymlinks": "FollowSymLinks",
                "symlinksifownermatch": "SymLinksIfOwnerMatch",
                "execcgi": "ExecCGI", "multiviews": "MultiViews", "runscripts": "RunScripts"}
_CLASS_NAMES = {c.lower(): c for c in OVERRIDE_CLASSES}


def is_option_keyword(word: str) -> bool:
    """Is *word* (``+Indexes``, ``-runscripts``, ``All``...) a keyword of ``Options``?  Apache
    answers "Illegal option" for any other (core.c set_options)."""
    return word.lstrip("+-").lower() in _OPT


def _keywords(mask: int) -> frozenset[str]:
    return frozenset(name for key, name in OPTION_NAMES.items()
                     if key != "runscripts" and mask & _OPT[key] == _OPT[key])


@dataclass(frozen=True, slots=True)
class AllowOverride:
    """An ``AllowOverride`` line as Apache reads it.

    ``classes``: the granted classes (empty: ``.htaccess`` is not read, unless an
    ``AllowOverrideList`` names something).  ``options``: the ``Options`` keywords an
    ``.htaccess`` may set, when restricted -- by ``Options=list``, or by a bare ``Options``,
    which permits only Apache's OPT_ALL (not MultiViews, not SymLinksIfOwnerMatch); None
    when unrestricted (``All`` alone).  ``nonfatal``: ``"Override"`` / ``"Unknown"`` -- such
    errors are logged and the directive skipped instead of a 500; it never makes a
    forbidden directive take effect.
    """

    classes: frozenset[str] = frozenset()
    options: frozenset[str] | None = None
    nonfatal: frozenset[str] = frozenset()

    @property
    def reads_htaccess(self) -> bool:
        """Does Apache open the ``.htaccess`` (AllowOverrideList aside)?  request.c reads it
        when ``opts.override`` is not 0, and ``Nonfatal=…`` sets a bit of it: with no class
        besides, the file is read and every directive in it refused (skipped where the
        Nonfatal covers the error; an unknown one is still a 500 under Nonfatal=Override).
        The model's ``CoreDir.htaccess_enabled`` says the same of the merged bits."""
        return bool(self.classes) or bool(self.nonfatal)

    @property
    def override_opts(self) -> int:
        """The ``Options`` bits an ``.htaccess`` may set (Apache's ``override_opts``)."""
        if self.options is None:
            return OPT_OVERRIDE_DEFAULT
        bits = 0
        for keyword in self.options:
            bits |= _OPT[keyword.lower()]
        return bits

    def permits_option(self, option: str) -> bool:
        """May an ``.htaccess`` ``Options`` line name *option* (``+MultiViews``, ``All``...)?"""
        if "Options" not in self.classes:
            return False
        bits = _OPT.get(option.lstrip("+-").lower())
        if bits is None:
            return False  # Apache: "Illegal option"
        return self.override_opts & bits == bits

    @classmethod
    def parse(cls, words: Iterable[str]) -> AllowOverride:
        """Read the arguments of ``AllowOverride`` in order, as Apache's set_override does.

        Keywords are case-insensitive.  ``None`` and ``All`` replace what came before them
        (``Nonfatal`` included) but not an earlier ``Options`` restriction; a later
        ``Options=`` replaces an earlier one.  Raises ValueError where Apache refuses the line.
        """
        classes: set[str] = set()
        options: frozenset[str] | None = None
        nonfatal: set[str] = set()
        for word in words:
            key, has_value, value = word.partition("=")
            lkey = key.lower()
            if lkey == "none":
                classes.clear()
                nonfatal.clear()
            elif lkey == "all":
                classes = set(OVERRIDE_CLASSES)
                nonfatal.clear()
            elif lkey == "options":
                classes.add("Options")
                options = _keywords(_allow_opts(value) if has_value else _OPT["all"])
            elif lkey in _CLASS_NAMES:
                classes.add(_CLASS_NAMES[lkey])
            elif lkey == "nonfatal":
                if not has_value:
                    raise ValueError(f"=Override, =Unknown or =All expected after {word}")
                nonfatal |= {"override": {"Override"}, "unknown": {"Unknown"},
                             "all": {"Override", "Unknown"}}.get(value.lower(), set())
            else:
                raise ValueError(f"Illegal override option {word}")
        return cls(frozenset(classes), options, frozenset(nonfatal))


def _allow_opts(value: str) -> int:
    mask = 0
    for word in filter(None, value.split(",")):
        if word.lower() not in _OPT:
            raise ValueError(f"Illegal option {word}")
        mask |= _OPT[word.lower()]
    return mask


def override_list(names: Iterable[str]) -> frozenset[str]:
    """The directives an ``AllowOverrideList`` really admits (lower-cased).

    Apache discards, with only a warning, names it does not know and directives that are
    allowed neither in a directory context nor by any AllowOverride class (so a
    ``AllowOverrideList FileInfo`` admits nothing).  ``None`` alone means no list; with
    other names it is an error (ValueError).
    """
    names = list(names)
    if any(n.lower() == "none" for n in names):
        if len(names) != 1:
            raise ValueError("'None' not allowed with other directives in AllowOverrideList")
        return frozenset()
    kept = set()
    for name in names:
        infos = registry().get_exact(name)
        if any(_listable(info) for info in infos):
            kept.add(_key(name))
    return frozenset(kept)


def _listable(info: DirectiveInfo) -> bool:
    if info.listable is not None:  # checked against Apache
        return info.listable
    # Apache keeps commands allowed in a directory context or by some class (OR_ALL|ACCESS_CONF)
    return "directory" in info.contexts or info.allowed_in_htaccess


def overrides_permit(directive_name: str, allow_override: Iterable[str] | AllowOverride,
                     allow_override_list: Iterable[str] = ()) -> bool:
    """Would Apache honour *directive_name* in an ``.htaccess`` file governed by
    ``AllowOverride <allow_override>`` and ``AllowOverrideList <allow_override_list>``?

    *allow_override* is the directive's arguments in written order (order matters when
    ``None``/``All`` follow other words) or a parsed :class:`AllowOverride`.  Supported:
    the five classes, ``All``, ``None``, ``Options[=list]`` (it grants the Options class;
    which Options keywords an ``Options`` line may then set is
    :meth:`AllowOverride.permits_option`), ``Nonfatal=`` (parsed; it does not make a
    forbidden directive take effect, so it does not change the answer), and
    AllowOverrideList by directive name (case-insensitive), which admits a directive
    whatever the classes -- even one allowed only in ``<Directory>`` -- unless its own
    handler refuses ``.htaccess`` (``listable`` False).  Unknown directives are never
    honoured (Apache: "Invalid command").  For a third-party directive allowed in ``.htaccess``
    whose class is not known the answer is True under ``AllowOverride All`` (every class is
    granted) and False otherwise unless it is listed.
    """
    spec = allow_override if isinstance(allow_override, AllowOverride) else (
        AllowOverride.parse(allow_override))
    listed = override_list(allow_override_list)
    info = registry().get(directive_name)
    if info is None:
        return False
    if _key(info.name) in listed:
        return True
    if not info.override_classes and info.allowed_in_htaccess:
        # A third-party directive whose class is not recorded: AllowOverride All grants every
        # class, so Apache admits it whatever its class is; under anything less it may not.
        return spec.classes == OVERRIDE_CLASSES
    return bool(info.override_classes & spec.classes)
