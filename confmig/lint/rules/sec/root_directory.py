"""The ``<Directory />`` section(s) of a server config."""

from __future__ import annotations

import os

from confmig.lint.context import FileContext
from confmig.lint.rules.rw.scopes import Scope, scopes


def root_scopes(ctx: FileContext) -> list[Scope]:
    """Scopes that are ``<Directory />`` (the whole filesystem)."""
    out = []
    for scope in scopes(ctx):
        section = scope.section
        if scope.kind != "directory" or section is None or not section.args:
            continue
        if section.args[0] != "~" and os.path.normpath(section.args[0]) in ("/", "//"):
            out.append(scope)
    return out
