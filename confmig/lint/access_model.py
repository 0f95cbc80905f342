"""An access file as the request model reads it: the question lint, ``explain`` and the
converters share — does Apache answer 500 for this ``.htaccess``, and because of which lines?

The model answers it (:class:`confmig.model.htaccess.AccessFiles`, ``ap_parse_htaccess``:
the section of the file under the AllowOverride in force, with the configuration errors
Apache reports for it); lint asks, it does not re-derive.  The answer is asked once per file
context and kept with it, so that a tree rule that asks the model about the same file
(SEC002's requests in its directory) reads the same section instead of building it again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from confmig.lint.context import FileContext, Overrides
    from confmig.model.htaccess import AccessFiles, HtaccessResult
    from confmig.model.merge import OptsState

# A refusal as a summary keeps it: (file, line, column, Apache's message).
Refusal = tuple[str, int, int, str]
DEFAULT_NAMES = (".htaccess",)


def access_opts(overrides: Overrides) -> OptsState:
    """The ``core_opts_t`` the directory walk reaches the file's directory with, as far as
    reading the access file goes: AllowOverride (its classes, ``Nonfatal=``, ``Options=``)
    and AllowOverrideList as the model's ``<Directory>`` merge leaves them (lint's
    :class:`~confmig.lint.context.Overrides` is read from the same sections; an access file
    cannot set either)."""
    from confmig.model.merge import OptsState

    spec = overrides.spec
    return OptsState(0, 0, 0, spec.classes, spec.nonfatal, spec.override_opts,
                     overrides.allow_override_list)


def access_directory(ctx: FileContext) -> str:
    """The file's directory as the walk names a level (``/site/``), from ``/`` when lint
    knows none (one file alone: :func:`sec002_sensitive_files._holes_of_file` does the
    same)."""
    root = os.path.join("/", ctx.directory or "/")
    return root if root.endswith("/") else root + "/"


def access_files(ctx: FileContext, names: Sequence[str] = DEFAULT_NAMES) -> AccessFiles:
    """The model's reader of access files for *ctx*, holding just this file (as lint read
    it) under its directory's first access file name, its answer asked once (kept with the
    context: :func:`forget`)."""
    found = ctx.model_access
    names = tuple(names)
    if found is not None and found[0] == names:
        return found[1]
    from confmig.model.htaccess import AccessFiles
    from confmig.model.listed_files import ListedFiles

    path = access_directory(ctx) + names[0]
    access = {path: ctx.loaded}
    reader = AccessFiles(ListedFiles((), access), ctx.loaded.state)
    reader.preload(access)  # (the file as lint read it: nothing is read from the disk)
    reader.lookup(access_directory(ctx), names, access_opts(ctx.overrides))
    ctx.model_access = (names, reader)
    return reader


def access_result(ctx: FileContext, names: Sequence[str] = DEFAULT_NAMES) -> HtaccessResult:
    """What the model answers for the file: its section (with the errors that make Apache
    answer 500) or the status it causes (``explain`` reports the same)."""
    return access_files(ctx, names).lookup(access_directory(ctx), tuple(names),
                                           access_opts(ctx.overrides))


def refusals(ctx: FileContext, names: Sequence[str] = DEFAULT_NAMES) -> tuple[Refusal, ...]:
    """Each line of the file the model says Apache refuses (any one makes every request under
    the directory answer 500), in file order; none for a file Apache never opens
    (AllowOverride None) or a line AllowOverride Nonfatal skips.  What does not parse is not
    here: the model reads no further (SYN001 reports it)."""
    if not ctx.read_by_apache:
        return ()
    section = access_result(ctx, names).section
    if section is None or not section.errors:
        return ()
    found = {(node.file, node.line, node.column, message) for node, message in section.errors}
    return tuple(sorted(found, key=lambda r: (r[1], r[2], r[3])))


def forget(ctx: FileContext) -> None:
    """Let go of the model's answer kept with *ctx* (its section)."""
    ctx.model_access = None
