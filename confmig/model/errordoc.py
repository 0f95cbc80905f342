"""``ap_die``: an error status looked up in ``ErrorDocument`` — a message, an external URL
(a 302), or a local path served by an internal redirect that keeps the status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.model.merge import CoreDir, error_document_kind
from confmig.model.round import Round

if TYPE_CHECKING:
    from confmig.model.answer import Answer
    from confmig.model.evaluate import Evaluation


def error_response(ev: Evaluation, rnd: Round, status: int) -> Answer:
    """``ap_die``: the ErrorDocument of the failing request's configuration, if any."""
    core: CoreDir = rnd.config["core"]
    doc = core.error_documents.get(status)
    if doc is None or doc[0].lower() == "default":
        return ev.answer(rnd, status)
    target, directive = doc
    kind = error_document_kind(target)
    if kind == "text":
        ev.step("error", f"ErrorDocument {status}: a message", directive)
        answer = ev.answer(rnd, status)
        answer.body = target.strip('"')
        return answer
    if kind == "url":
        ev.step("error", f"ErrorDocument {status} is a URL → 302 {target}", directive)
        rnd.location = target
        return ev.answer(rnd, 302)
    if ev.trace:
        ev.step("error", f"ErrorDocument {status}: internal redirect to {target}", directive)
    path, sep, query = target.partition("?")
    env = {f"REDIRECT_{k}": v for k, v in rnd.env.items()}
    env["REDIRECT_STATUS"] = str(status)
    doc_round = ev.process_chain(path, query if sep else None, "GET", env, redirects=1)
    if doc_round.served and not doc_round.status:
        return ev.answer(doc_round, status)
    ev.step("error", f"the ErrorDocument itself failed ({doc_round.status or 'no file'})"
                     f"; Apache sends its own {status} page")
    return ev.answer(rnd, status)
