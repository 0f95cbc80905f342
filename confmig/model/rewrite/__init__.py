"""A pure-Python model of Apache 2.4's mod_rewrite.

* :class:`RewriteConfig` — the Rewrite* directives of one section, parsed (``parse``);
* :func:`evaluate_server` / :func:`evaluate_directory` — one pass of a ruleset (``engine``);
* :func:`merge` / :func:`merge_server` — Apache's config merging for mod_rewrite (``merge``).
"""

from confmig.model.rewrite.engine import (
    evaluate_directory,
    evaluate_server,
    matches_request_vhost,
    split_path_info,
)
from confmig.model.rewrite.maps import RewriteMap
from confmig.model.rewrite.merge import merge, merge_server, server_dir_defaults
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

__all__ = [
    "CondStep", "Condition", "Filesystem", "Headers", "Lookahead", "MemoryFilesystem",
    "RealFilesystem", "RewriteConfig", "RewriteMap", "RewriteOutcome", "RewriteRequest",
    "RewriteRule", "Step", "evaluate_directory", "evaluate_server", "matches_request_vhost",
    "merge", "merge_server", "server_dir_defaults", "split_path_info",
]
