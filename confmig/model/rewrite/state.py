"""The mutable state of one rewrite pass: Apache's ``request_rec`` fields mod_rewrite touches
plus its ``rewrite_ctx`` (back-references, Vary bookkeeping)."""

from __future__ import annotations

import random
from collections.abc import Mapping

from confmig.model.rewrite.maps import RewriteMap
from confmig.model.rewrite.outcome import Step
from confmig.model.rewrite.regex import Captures
from confmig.model.rewrite.request import RewriteRequest


class EvalState:
    """One pass's state.  The fields most passes never write (types, handlers, cookies, maps'
    randomness, what was reported unsupported …) are class-level defaults, replaced on the
    instance on first write: a pass runs for nearly every request, and most of its cost is
    setting itself up."""

    __slots__ = (
        "__dict__", "args", "base", "br_cond", "br_rule", "env", "env_changes", "filename",
        "maps", "match_uri", "path_info", "perdir", "request", "trace", "uri", "vary",
        "vary_this",
    )

    # Written by few passes (see note_unsupported, apply._add_cookie, apply._merge_vary …).
    rng: random.Random | None = None
    mime_type: str | None = None
    handler: str | None = None
    request_vary: dict[str, str] | None = None  # what ends up in the response's Vary
    # the headers RewriteCond expr read (ap_expr adds them to Vary itself, before the pass's)
    expr_vary: list[str] | tuple[()] = ()
    cookies: list[str] | tuple[()] = ()
    cookie_names: set[str] | None = None
    unsupported: list[str] | tuple[()] = ()
    steps: list[Step] | tuple[()] = ()  # a list when tracing
    uri_reduced = False

    def __init__(self, request: RewriteRequest, perdir: str | None,
                 maps: Mapping[str, RewriteMap], filename: str, path_info: str,
                 trace: bool = True, rng: random.Random | None = None,
                 base: str | None = None) -> None:
        self.request = request
        self.perdir = perdir  # ctx->perdir: the directory prefix (with trailing /) or None
        self.base = base  # RewriteBase of the per-dir context
        self.maps = maps
        self.filename = filename  # r->filename
        self.path_info = path_info  # r->path_info
        self.args = request.query  # r->args
        self.uri = request.uri  # r->uri
        self.match_uri = filename  # ctx->uri: what the current rule's pattern is applied to
        self.env: dict[str, str] = request.env  # r->subprocess_env; copied on first write
        self.env_changes: dict[str, str | None] = {}
        self.br_rule: Captures | None = None  # $N
        self.br_cond: Captures | None = None  # %N
        self.vary_this: list[str] = []
        self.vary: list[str] = []  # ctx->vary: headers the current rule's conditions used
        self.trace = trace
        if trace:
            self.steps = []
        if rng is not None:
            self.rng = rng

    def note_unsupported(self, what: str) -> None:
        if what not in self.unsupported:
            self.unsupported = [*self.unsupported, what]
