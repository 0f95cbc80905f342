"""Before measuring: does each target answer the benchmark URLs like the baseline?

A fast wrong server proves nothing, so a target whose answers differ from the baseline's is
not measured at all. The comparison is ``confmig verify``'s (:mod:`confmig.verify.compare`):
status, ``Location``, a hash of the body, and every header a configuration can set — not
``Date``, ``Server`` and the like, and each server's own port normalised away.
"""

from __future__ import annotations

import hashlib
import http.client
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from confmig.servers import Response, ResponseHeaders, http_get
from confmig.servers.net import LOOPBACK
from confmig.verify.compare import FieldDiff, Observed, differences, failed, observe

Differences = Callable[[Observed, Observed], list[FieldDiff]]

#: How many of the benchmark URLs are compared (all of them when there are fewer).
MAX_CHECKED_URLS = 60
#: Above this many bytes a body is hashed as it arrives, not held in memory (``--size
#: large``: 150 MB files).
STREAM_ABOVE_BYTES = 1024 * 1024
#: A streamed body is read in chunks of this size.
CHUNK_BYTES = 1024 * 1024


@dataclass
class CheckResult:
    """The outcome of comparing one target with the baseline."""

    target: str
    checked: int = 0
    differences: list[dict[str, object]] = field(default_factory=list)
    seq: int = -1  # position in the run's event order (set by the runner)

    @property
    def ok(self) -> bool:
        return self.checked > 0 and not self.differences

    def summary(self) -> str:
        if self.ok:
            return f"{self.target}: {self.checked} URLs answered like the baseline"
        if not self.differences:
            return f"{self.target}: nothing was checked"
        first = self.differences[0]
        urls = len({d["path"] for d in self.differences})
        return (f"{self.target}: {urls} of {self.checked} URLs answered differently from "
                f"the baseline, e.g. {first['path']}: {first['what']}")

    def to_json(self) -> dict[str, object]:
        return {"target": self.target, "ok": self.ok, "checked": self.checked,
                "differences": self.differences[:20], "seq": self.seq}


def checked_paths(paths: Sequence[str], limit: int = MAX_CHECKED_URLS) -> list[str]:
    """An evenly spread subset of *paths* (all of them when there are at most *limit*)."""
    if len(paths) <= limit:
        return list(paths)
    step = len(paths) / limit
    return [paths[int(i * step)] for i in range(limit)]


def fetch_answers(base_url: str, port: int, paths: Sequence[str], *,
                  stream: bool = False) -> dict[str, Observed]:
    """Each path's answer, reduced to what the configuration decides (*stream*: bodies of
    media size hashed as they arrive, :func:`fetch_streamed`)."""
    answers = {}
    for path in paths:
        try:
            if stream:
                answers[path] = fetch_streamed(port, path)
            else:
                answers[path] = observe(http_get(base_url, path), port)
        except (OSError, http.client.HTTPException) as exc:
            answers[path] = failed(exc)
    return answers


def fetch_streamed(port: int, path: str, timeout: float = 60.0) -> Observed:
    """GET *path* and observe the answer as :func:`confmig.verify.compare.observe` does,
    but with a large body hashed chunk by chunk: memory stays at one chunk whatever the file's
    size (a 150 MB body would otherwise be held several times over)."""
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.putheader("Accept-Encoding", "identity")
        conn.endheaders()
        resp = conn.getresponse()
        head = resp.read(STREAM_ABOVE_BYTES + 1)
        if len(head) <= STREAM_ABOVE_BYTES:
            return observe(Response(resp.status, resp.reason, ResponseHeaders(resp.getheaders()),
                                    head), port)
        digest = hashlib.sha256(head)
        while chunk := resp.read(CHUNK_BYTES):
            digest.update(chunk)
        shape = observe(Response(resp.status, resp.reason, ResponseHeaders(resp.getheaders()),
                                 head[:4096]), port)
        return replace(shape, body_sha256=digest.hexdigest())
    finally:
        conn.close()


def compare(name: str, baseline: dict[str, Observed], candidate: dict[str, Observed],
            diff: Differences = differences) -> CheckResult:
    """Compare two servers' answers URL by URL (with *diff*: the target's own comparison,
    which knows what that kind of server writes on its own)."""
    result = CheckResult(name, checked=len(baseline))
    for path, want in baseline.items():
        got = candidate.get(path)
        if got is None:
            result.differences.append({"path": path, "what": "not requested"})
            continue
        for found in diff(want, got):
            result.differences.append({
                "path": path, "field": found.field, "baseline": found.original,
                "target": found.converted,
                "what": f"{found.field} {found.converted!r}, baseline {found.original!r}"})
    return result


def baseline_problem(answers: dict[str, Observed]) -> str | None:
    """The baseline itself must serve the benchmark URLs (2xx); else there is nothing to
    measure."""
    bad = [(path, a.error or a.status) for path, a in answers.items()
           if not 200 <= a.status < 300]
    if not bad:
        return None
    path, status = bad[0]
    return (f"the baseline answers {len(bad)} of {len(answers)} benchmark URLs with an error, "
            f"e.g. {path} → {status}")
