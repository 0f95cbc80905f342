"""mod_mime's per-directory configuration: AddType/AddHandler/AddCharset/… per extension,
Remove*, DefaultLanguage, and ``merge_mime_dir_configs``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from confmig.model.merge.handlers import handles, takes
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

_EXT_FIELDS = ("type", "handler", "encoding", "language", "charset", "input_filters",
               "output_filters")


@dataclass(frozen=True, slots=True)
class ExtInfo:
    """``extension_info``: what AddType/AddHandler/… say about one extension.

    ``type == ""`` is RemoveType (it hides the TypesConfig type too).
    """

    type: str | None = None
    handler: str | None = None
    encoding: str | None = None
    language: str | None = None
    charset: str | None = None
    input_filters: str | None = None
    output_filters: str | None = None


@dataclass(frozen=True, slots=True)
class MimeDir:
    """``mime_dir_config``: per-extension info (None: no Add* here), pending removals."""

    mappings: Mapping[str, ExtInfo] | None = None
    removals: tuple[tuple[str, str], ...] = ()  # (extension, field) from Remove*
    default_language: str | None = None


def merge_mime(base: MimeDir, add: MimeDir) -> MimeDir:
    """``merge_mime_dir_configs``: per-extension overlay, then the child's Remove* applied."""
    if base.mappings is not None and add.mappings is not None:
        merged = dict(base.mappings)
        for ext, info in add.mappings.items():
            old = merged.get(ext)
            if old is None:
                merged[ext] = info
            else:
                merged[ext] = replace(old, **{f: getattr(info, f) for f in _EXT_FIELDS
                                              if getattr(info, f) is not None})
        mappings: dict[str, ExtInfo] | None = merged
    else:
        mappings = dict(add.mappings if base.mappings is None else base.mappings) \
            if (add.mappings or base.mappings) is not None else None
    if mappings is not None and add.removals:
        for ext, fname in add.removals:
            info = mappings.get(ext)
            if info is not None:
                mappings[ext] = replace(info, **{fname: None})
    return MimeDir(mappings, (), add.default_language or base.default_language)


# -- directives --------------------------------------------------------------------------

_MIME_ADD = {"addtype": "type", "addhandler": "handler", "addencoding": "encoding",
             "addlanguage": "language", "addcharset": "charset",
             "addinputfilter": "input_filters", "addoutputfilter": "output_filters"}
_MIME_REMOVE = {"removehandler": "handler", "removeencoding": "encoding",
                "removelanguage": "language", "removecharset": "charset",
                "removeinputfilter": "input_filters", "removeoutputfilter": "output_filters"}


def _iterated(words: list[str]) -> list[str]:
    """The words an ITERATE/ITERATE2 directive is invoked with: config.c stops at the first
    empty one (``""``), and ``takes`` refuses an empty first word."""
    return words[:words.index("")] if "" in words else words


@handles(*_MIME_ADD)
def _mime_add(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if (len(d.args) < 2 or not d.args[0]) and (problem := takes(d)) is not None:
        return problem
    b.touched.add("mime")
    fname = _MIME_ADD[d.lname]
    value = d.args[0].lower()
    for ext in _iterated(d.args[1:]):
        key = ext.lower().removeprefix(".")
        b.mime_exts.setdefault(key, {})[fname] = value
    return None


@handles("removetype")
def _mime_remove_type(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if (not d.args or not d.args[0]) and (problem := takes(d)) is not None:
        return problem
    b.touched.add("mime")
    for ext in _iterated(d.args):
        b.mime_exts.setdefault(ext.lower().removeprefix("."), {})["type"] = ""
    return None


@handles(*_MIME_REMOVE)
def _mime_remove(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if (not d.args or not d.args[0]) and (problem := takes(d)) is not None:
        return problem
    b.touched.add("mime")
    for ext in _iterated(d.args):
        b.mime_removals.append((ext.lower().removeprefix("."), _MIME_REMOVE[d.lname]))
    return None


@handles("defaultlanguage")
def _default_language(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    b.touched.add("mime")
    b.mime_lang = d.args[0] if d.args else None
    return takes(d)

