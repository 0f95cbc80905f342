"""What the model answers for a request (:class:`Answer`) and the steps that explain it
(:class:`Step`), both serialisable for ``confmig explain --format json``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from confmig.model.applied import AppliedDirective


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happened while processing the request, for the explanation."""

    phase: str
    message: str
    file: str | None = None
    line: int | None = None
    detail: tuple[str, ...] = ()
    # (file, line) of every directive that took effect in this step besides the one above
    # (the RewriteRules a rewrite pass applied)
    sources: tuple[tuple[str, int], ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"phase": self.phase, "message": self.message}
        if self.file is not None:
            out["file"], out["line"] = self.file, self.line
        if self.detail:
            out["detail"] = list(self.detail)
        if self.sources:
            out["sources"] = [{"file": f, "line": n} for f, n in self.sources]
        return out


@dataclass
class Answer:
    """Apache's answer to a request, and why.

    ``file`` is the served file relative to the DocumentRoot (None when no file is served: a
    redirect, an error without ErrorDocument, a directory listing); ``filename`` is its
    absolute path.  ``headers`` are the response headers the configuration sets (an
    ``Expires`` value depends on the time of the request).  ``unsupported`` lists what the
    model could not evaluate exactly; ``limits`` the limits of Apache's own that the request
    ran into (the answer is Apache's answer at that limit).
    """

    status: int
    location: str | None = None
    file: str | None = None
    filename: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    applied: list[AppliedDirective] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    server: str = ""
    document_root: str = ""
    handler: str | None = None
    body: str | None = None
    listing: bool = False
    unsupported: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status, "location": self.location, "file": self.file,
            "filename": self.filename, "headers": dict(self.headers),
            "steps": [s.as_json() for s in self.steps],
            "applied": [a.as_json() for a in self.applied], "server": self.server,
            "document_root": self.document_root, "handler": self.handler,
            "listing": self.listing, "body": self.body, "unsupported": list(self.unsupported),
            "limits": list(self.limits),
        }

