"""The ``<Directory />`` section(s) of a server config."""

from __future__ import annotations

from confmig.apache.paths import directory_section_path
from confmig.lint.context import FileContext
from confmig.lint.scopes import Scope


def root_scopes(ctx: FileContext) -> list[Scope]:
    """Scopes that are ``<Directory />`` (the whole filesystem) as Apache reads them:
    ``//``, and the relative ``.``, ``..``, ``""`` — taken from ``/``, the working
    directory of a daemonised Apache (:func:`directory_section_path`)."""
    out = []
    for scope in ctx.scopes():
        section = scope.section
        if scope.kind != "directory" or section is None or not section.args:
            continue
        if section.args[0] != "~" and directory_section_path(section.args[0]) == "/":
            out.append(scope)
    return out
