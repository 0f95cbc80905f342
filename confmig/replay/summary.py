"""What a replay adds up to: the operator's questions about their traffic."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from confmig.replay.logs import BadLine
from confmig.replay.run import Replayed


@dataclass(frozen=True)
class Difference:
    """One request that would answer differently after ``convert --to``: where it is in the
    file, what was sent, and each field that differs (name, original's, converted's)."""

    where: str  # FILE:LINE
    request: str  # METHOD target
    fields: tuple[tuple[str, str, str], ...]
    announced: bool  # convert said so (untranslatable) for its directory


@dataclass
class AfterConvert:
    """What ``--against TARGET`` found: the file's requests sent to the original Apache and
    to the converted target and compared (``verify --requests``'s comparison)."""

    target: str
    compared: int  # requests at least one server answered
    sent: int
    planned: int  # the file's distinct requests
    complete: bool  # every one was sent (no time or count limit hit)
    differences: list[Difference] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "compared": self.compared, "sent": self.sent,
                "planned": self.planned, "complete": self.complete,
                "differ": [{"where": d.where, "request": d.request, "announced": d.announced,
                            "fields": [{"field": f, "original": a, "converted": b}
                                       for f, a, b in d.fields]}
                           for d in self.differences]}


@dataclass
class Summary:
    total: int = 0
    distinct: int = 0  # requests evaluated (the others repeat one of them)
    statuses: Counter[int] = field(default_factory=Counter)
    denied: Counter[tuple[int, str]] = field(default_factory=Counter)  # (status, decided by)
    redirected: Counter[tuple[int, str]] = field(default_factory=Counter)  # (status, Location)
    rewritten_to: Counter[str] = field(default_factory=Counter)  # file the rules sent it to
    fired: set[tuple[str, int]] = field(default_factory=set)
    bad: list[BadLine] = field(default_factory=list)
    unsupported: Counter[str] = field(default_factory=Counter)
    never_fired: list[tuple[str, int, str]] = field(default_factory=list)
    after_convert: AfterConvert | None = None  # --against TARGET

    def add(self, item: Replayed | BadLine, fired: frozenset[tuple[str, int]],
            first: bool = True) -> None:
        """Count one line's answer; *first*: the first line that asked this request."""
        if isinstance(item, BadLine):
            self.bad.append(item)
            return
        self.total += 1
        self.distinct += first
        self.statuses[item.status] += 1
        self.fired |= fired
        by = f"{item.decided_by[0]}:{item.decided_by[1]}" if item.decided_by else "?"
        if item.status in (401, 403, 405, 410) or item.status >= 500:
            self.denied[(item.status, by)] += 1
        elif 300 <= item.status < 400:
            self.redirected[(item.status, item.location or "")] += 1
        elif item.rewritten and item.file is not None and item.status < 300:
            self.rewritten_to[item.file] += 1
        for note in item.unsupported:
            self.unsupported[note] += 1

    def finish(self, acting: list[tuple[str, int, str]]) -> None:
        self.never_fired = [a for a in acting if (a[0], a[1]) not in self.fired]

    def as_json(self) -> dict[str, Any]:
        out = {
            "requests": self.total, "distinct": self.distinct, "statuses": {str(k): v for k, v in
                                                 sorted(self.statuses.items())},
            "denied": [{"status": s, "decided_by": by, "count": n}
                       for (s, by), n in self.denied.most_common()],
            "redirected": [{"status": s, "location": loc, "count": n}
                           for (s, loc), n in self.redirected.most_common()],
            "rewritten_to": [{"file": f, "count": n} for f, n in self.rewritten_to.most_common()],
            "never_fired": [{"file": f, "line": n, "directive": text}
                            for f, n, text in self.never_fired],
            "bad_lines": [{"line": b.line, "why": b.why} for b in self.bad],
            "unsupported": [{"note": k, "count": n} for k, n in self.unsupported.most_common()],
        }
        if self.after_convert is not None:
            out["after_convert"] = self.after_convert.as_json()
        return out
