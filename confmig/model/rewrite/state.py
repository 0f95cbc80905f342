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
    __slots__ = (
        "args", "base", "br_cond", "br_rule", "cookie_names", "cookies", "env", "env_changes",
        "filename", "handler", "maps", "match_uri", "mime_type", "path_info", "perdir",
        "request", "request_vary", "rng", "steps", "trace", "unsupported", "uri",
        "uri_reduced", "vary", "vary_this",
    )

    def __init__(self, request: RewriteRequest, perdir: str | None,
                 maps: Mapping[str, RewriteMap], filename: str, path_info: str,
                 trace: bool = True, rng: random.Random | None = None) -> None:
        self.request = request
        self.perdir = perdir  # ctx->perdir: the directory prefix (with trailing /) or None
        self.base: str | None = None  # RewriteBase of the per-dir context
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
        # What ends up in the response's Vary, and the names of the cookies set: made on first
        # use (most passes set neither).
        self.request_vary: dict[str, str] | None = None
        self.cookies: list[str] = []
        self.cookie_names: set[str] | None = None
        self.mime_type: str | None = None
        self.handler: str | None = None
        self.unsupported: list[str] = []
        self.steps: list[Step] = []
        self.trace = trace
        self.rng = rng
        self.uri_reduced = False

    def note_unsupported(self, what: str) -> None:
        if what not in self.unsupported:
            self.unsupported.append(what)
