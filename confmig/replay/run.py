"""Evaluate the requests of a replay file with the model, one evaluation per distinct request
(a log repeats itself: the answer is shared by every line that asks the same), each answer
traced so the summary knows which directives decided it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from confmig.load import Workspace
from confmig.model.answer import Answer
from confmig.model.evaluate import evaluate
from confmig.model.request import Request, RequestError
from confmig.model.target import site_for
from confmig.replay.logs import BadLine, LoggedRequest

# The directives whose taking effect depends on the request (a rule that matches, a
# redirect that applies): the ones "never fired" is said of.
ACTING = frozenset({"rewriterule", "redirect", "redirectmatch", "redirectpermanent",
                    "redirecttemp", "fallbackresource"})


@dataclass(frozen=True)
class Replayed:
    """One line's answer: status, Location, the file served, the directive that decided."""

    request: LoggedRequest
    status: int
    location: str | None
    file: str | None
    decided_by: tuple[str, int] | None
    rewritten: bool
    unsupported: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        by = self.decided_by
        return {"line": self.request.line, "method": self.request.method,
                "url": self.request.url, "status": self.status, "location": self.location,
                "file": self.file, "decided_by": f"{by[0]}:{by[1]}" if by else None,
                "unsupported": list(self.unsupported)}


@dataclass
class Evaluated:
    """What one distinct request taught: its answer and the directives that took effect."""

    answer: Replayed
    fired: frozenset[tuple[str, int]] = field(default_factory=frozenset)


def replay(workspace: Workspace, lines: Iterable[LoggedRequest | BadLine]
           ) -> Iterator[tuple[Replayed | BadLine, frozenset[tuple[str, int]], bool]]:
    """Each line's answer (or the bad line), the directives that fired for it, and whether
    the line was evaluated (False: it repeats an earlier line's request)."""
    site = site_for(workspace)
    seen: dict[tuple[Any, ...], Evaluated] = {}
    for item in lines:
        if isinstance(item, BadLine):
            yield item, frozenset(), False
            continue
        known = seen.get(item.key)
        if known is not None:
            yield _for_line(known.answer, item), known.fired, False
            continue
        try:
            request = Request.from_url(item.url, method=item.method, headers=item.headers)
        except RequestError as exc:
            yield BadLine(item.line, str(exc)), frozenset(), False
            continue
        known = seen[item.key] = _evaluated(item, evaluate(site, request))
        yield known.answer, known.fired, True


def _evaluated(item: LoggedRequest, answer: Answer) -> Evaluated:
    """The directive that decided: for an error or a redirect the last one the explanation
    names (the Require that denied, the [F] or [R] rule, the Redirect, the ErrorDocument);
    for a success the last rewrite rule that changed the request, if any."""
    fired: set[tuple[str, int]] = set()
    last_named: tuple[str, int] | None = None
    last_rewrite: tuple[str, int] | None = None
    for step in answer.steps:
        if step.sources:
            fired.update((_absolute(f), n) for f, n in step.sources)
            last_named = step.sources[-1]
            if not step.message.endswith("): none"):  # this pass changed the request
                last_rewrite = step.sources[-1]
        elif step.file is not None and step.line is not None and step.phase != "walk" \
                and not (step.phase == "access" and step.message.endswith("granted")):
            fired.add((_absolute(step.file), step.line))
            last_named = (step.file, step.line)
    decided = last_named if answer.status >= 300 else last_rewrite
    return Evaluated(Replayed(item, answer.status, answer.location, answer.file, decided,
                              last_rewrite is not None, tuple(answer.unsupported)),
                     frozenset(fired))


def _for_line(answer: Replayed, item: LoggedRequest) -> Replayed:
    return Replayed(item, answer.status, answer.location, answer.file, answer.decided_by,
                    answer.rewritten, answer.unsupported)


def acting_directives(workspace: Workspace) -> list[tuple[str, int, str]]:
    """(file, line, text) of every :data:`ACTING` directive in the access files read."""
    out = []
    for loaded in workspace.access.values():
        for config_file in loaded.files.values():
            for directive in config_file.directives():
                if directive.lname in ACTING:
                    out.append((_absolute(directive.file), directive.line,
                                f"{directive.name} {' '.join(directive.args)}"))
    return sorted(out)


def _absolute(file: str) -> str:
    """A config file's name as one spelling (the model names files by absolute path, a
    workspace by the path it was given)."""
    return file if file.startswith("<") else os.path.abspath(file)
