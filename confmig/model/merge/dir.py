"""mod_dir's per-directory configuration: DirectoryIndex, DirectorySlash,
DirectoryCheckHandler, DirectoryIndexRedirect, FallbackResource, and ``merge_dir_configs``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from confmig.model.merge.handlers import handles, on_off, takes
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class DirDir:
    """``dir_config_rec``: None for what this section does not set."""

    index_names: tuple[str, ...] | None = None
    index_directive: Directive | None = None
    slash: bool | None = None
    check_handler: bool | None = None
    index_redirect: int | None = None
    fallback: str | None = None


def merge_dir(base: DirDir, add: DirDir) -> DirDir:
    """``merge_dir_configs``: every field is replaced by the child's when the child sets it."""
    keep_index = add.index_names is None
    return DirDir(
        base.index_names if keep_index else add.index_names,
        base.index_directive if keep_index else add.index_directive,
        add.slash if add.slash is not None else base.slash,
        add.check_handler if add.check_handler is not None else base.check_handler,
        add.index_redirect if add.index_redirect is not None else base.index_redirect,
        add.fallback or base.fallback,
    )


# -- directives --------------------------------------------------------------------------


@handles("directoryindex")
def _directory_index(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    """``add_index``: a section's DirectoryIndex lines accumulate; ``disabled`` alone clears."""
    b.touched.add("dir")
    # a list while the section is read (the builder makes DirDir's tuple): a tuple rebuilt
    # a line made a file of DirectoryIndex lines quadratic
    names = b.dir_fields.setdefault("index_names", [])
    if len(d.args) == 1 and d.args[0].lower() == "disabled":
        names.clear()
    else:
        names.extend(d.args)
    b.dir_fields["index_directive"] = d
    return None


@handles("directoryslash", "directorycheckhandler")
def _dir_flag(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = on_off(d)
    if value is None:
        return f"{d.name} must be On or Off"
    b.touched.add("dir")
    b.dir_fields["slash" if d.lname == "directoryslash" else "check_handler"] = value
    return None


@handles("directoryindexredirect")
def _dir_index_redirect(b: SectionBuilder, d: Directive, _m: frozenset[str] | None
                        ) -> str | None:
    err = takes(d)
    if err:
        return err
    low = d.args[0].lower()
    status = {"on": 302, "off": 0, "permanent": 301, "temp": 302, "seeother": 303}.get(low)
    if status is None:
        if not low[:1].isdigit():
            return "DirectoryIndexRedirect ON|OFF|permanent|temp|seeother|3xx"
        status = atoi(low)
        if not 300 <= status < 400:
            return "DirectoryIndexRedirect only accepts values between 300 and 399"
    b.touched.add("dir")
    b.dir_fields["index_redirect"] = status
    return None


@handles("fallbackresource")
def _fallback(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err is None:
        b.touched.add("dir")
        b.dir_fields["fallback"] = d.args[0]
    return err

