"""A pure-Python model of Apache 2.4's mod_rewrite.

* :class:`RewriteConfig` — the Rewrite* directives of one section, parsed (``parse``);
* :func:`evaluate_server` / :func:`evaluate_directory` — one pass of a ruleset (``engine``);
* :func:`merge` / :func:`merge_server` — Apache's config merging for mod_rewrite (``merge``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from confmig.model.rewrite.engine import (
        evaluate_directory,
        evaluate_server,
        matches_request_vhost,
        split_path_info,
    )
    from confmig.model.rewrite.maps import RewriteMap
    from confmig.model.rewrite.outcome import CondStep, RewriteOutcome, Step
    from confmig.model.rewrite.parse import Condition, RewriteConfig, RewriteRule
    from confmig.model.rewrite.request import (
        Filesystem,
        Headers,
        Lookahead,
        MemoryFilesystem,
        RealFilesystem,
        RewriteRequest,
    )

# Imported at once, not on first use: the function ``merge`` shares its name with its module,
# and importing the module binds that name to the module (``from confmig.model.rewrite import
# merge`` would give the module once anything had imported it). Its module is light (it reads
# the Rewrite* directives, which every user of this package does).
from confmig.model.rewrite.merge import merge, merge_server, server_dir_defaults

# The names above, each imported from its module when first used (PEP 562), as
# confmig.model.merge does: reading the Rewrite* directives of a section (lint's scopes, the
# section builder) does not load the engine that runs them (issue 17: a lint of a file
# without a RewriteRule never needs it). tests/model/test_lazy_exports.py checks the table.
EXPORTS = {
    "evaluate_directory": "confmig.model.rewrite.engine",
    "evaluate_server": "confmig.model.rewrite.engine",
    "matches_request_vhost": "confmig.model.rewrite.engine",
    "split_path_info": "confmig.model.rewrite.engine",
    "RewriteMap": "confmig.model.rewrite.maps",
    "CondStep": "confmig.model.rewrite.outcome",
    "RewriteOutcome": "confmig.model.rewrite.outcome",
    "Step": "confmig.model.rewrite.outcome",
    "Condition": "confmig.model.rewrite.parse",
    "RewriteConfig": "confmig.model.rewrite.parse",
    "RewriteRule": "confmig.model.rewrite.parse",
    "Filesystem": "confmig.model.rewrite.request",
    "Headers": "confmig.model.rewrite.request",
    "Lookahead": "confmig.model.rewrite.request",
    "MemoryFilesystem": "confmig.model.rewrite.request",
    "RealFilesystem": "confmig.model.rewrite.request",
    "RewriteRequest": "confmig.model.rewrite.request",
}
__all__ = [
    "CondStep", "Condition", "Filesystem", "Headers", "Lookahead", "MemoryFilesystem",
    "RealFilesystem", "RewriteConfig", "RewriteMap", "RewriteOutcome", "RewriteRequest",
    "RewriteRule", "Step", "evaluate_directory", "evaluate_server", "matches_request_vhost",
    "merge", "merge_server", "server_dir_defaults", "split_path_info",
]


def __getattr__(name: str) -> object:
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
