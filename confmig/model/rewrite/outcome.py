"""Results of one rewrite pass, with a readable trace of every rule tried."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from confmig.model.rewrite.rules import FILE_TESTS, INT_TESTS, Condition, RewriteRule

Action = Literal["none", "rewrite", "redirect", "forbidden", "gone", "proxy", "error"]


SHOWN_MAX = 200  # characters of a subject or result shown in the explanation


def shown(text: str) -> str:
    """*text* for the explanation: a long one cut in the middle, with its length."""
    if len(text) <= SHOWN_MAX:
        return text
    return f"{text[:SHOWN_MAX - 60]}…[{len(text)} characters]…{text[-40:]}"


shown_text = shown  # (CondStep's __str__ has a local named ``shown``)


@dataclass(slots=True)
class CondStep:
    """One RewriteCond as evaluated: its expanded test string and the result."""

    condition: Condition
    test: str
    result: bool
    detail: str = ""

    def __str__(self) -> str:
        cond = self.condition
        what = cond.flags  # (read once: the condition's attributes of the same names read it)
        kind = what.kind
        neg = "!" if what.negate else ""
        if kind in ("regex", "expr"):
            shown = f"{neg}{cond.pattern}"
        elif kind in FILE_TESTS:
            shown = f"{neg}{kind}"
        elif kind in INT_TESTS:
            shown = f"{neg}{kind} {cond.pattern}"
        else:
            shown = f"{neg}{kind}{cond.pattern}"
        flags = f" {what.flags_text}" if what.flags_text else ""
        extra = f" ({self.detail})" if self.detail else ""
        verdict = "matched" if self.result else "not-matched"
        return f"    cond '{shown_text(self.test)}' {shown}{flags} => {verdict}{extra}"


@dataclass(slots=True)
class Step:
    """One rule tried: the subject it was matched against and what came of it."""

    rule: RewriteRule
    subject: str
    matched: bool
    conditions: list[CondStep] = field(default_factory=list)
    conds_ok: bool = True
    result: str | None = None  # substitution result (after expansion, before prefixing)
    note: str = ""
    omitted: int = 0  # > 0: not a rule tried but a marker for that many steps left out

    @property
    def applied(self) -> bool:
        """The pattern matched and every condition held."""
        return self.matched and self.conds_ok

    def __str__(self) -> str:
        if self.omitted:
            return f"… {self.omitted} more rule step(s) not shown …"
        loc = ""
        d = self.rule.directive
        if d is not None:
            loc = f" ({d.file}:{d.line})"
        neg = "!" if self.rule.negate else ""
        flags = f" {self.rule.flags_text}" if self.rule.flags_text else ""
        head = (f"rule '{neg}{self.rule.pattern}'{flags} on '{shown(self.subject)}' => "
                f"{'matched' if self.matched else 'not-matched'}{loc}")
        lines = [head, *(str(c) for c in self.conditions)]
        if self.result is not None:
            lines.append(f"    rewrite '{shown(self.subject)}' -> '{shown(self.result)}'")
        if self.note:
            lines.append(f"    {self.note}")
        return "\n".join(lines)


@dataclass(slots=True)
class RewriteOutcome:
    """What one pass of a ruleset did.

    * ``none`` — no rule changed the URL (side effects such as ``env`` may still be set);
    * ``rewrite`` — ``filename`` is the new r->filename (server context: a filesystem path,
      already prefixed with DocumentRoot when Apache would; with ``passthrough`` it is the new
      URL-path for the next translators instead), ``uri`` the new URL-path (per-directory: what
      the internal redirect goes to), ``query`` the new r->args;
      ``internal_redirect`` tells that Apache restarts processing with ``uri``+``query``;
      ``status`` is set when an earlier ``[R]`` of the pass left ``r->status`` at 3xx: Apache
      then serves the final file with that status (and no Location);
    * ``redirect`` — ``status`` and ``location``;
    * ``forbidden`` (403) / ``gone`` (410) / ``error`` (any other status: 400, 500 for loops or
      a broken ruleset, R=4xx/5xx …) — ``status`` is set;
    * ``proxy`` — a ``[P]`` rule fired: ``location`` is the proxy target; not modelled further.

    ``end`` is True once an ``[END]`` rule fired: no further rewriting (no per-dir rounds, no
    server rules on the internal redirect).  ``unsupported`` lists what the model could not
    evaluate exactly; the outcome is exact only when it is empty.
    """

    action: Action = "none"
    status: int | None = None
    location: str | None = None
    uri: str | None = None
    filename: str | None = None
    query: str | None = None
    query_changed: bool = False
    internal_redirect: bool = False
    end: bool = False
    passthrough: bool = False
    noescape: bool = False
    path_info: str | None = None
    env: dict[str, str | None] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)
    mime_type: str | None = None
    handler: str | None = None
    vary: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def exact(self) -> bool:
        return not self.unsupported

    @property
    def changed(self) -> bool:
        return self.action != "none"

    def trace(self) -> str:
        """The steps as text, in the spirit of ``LogLevel rewrite:trace3``."""
        lines = [str(s) for s in self.steps]
        tail = f"=> {self.action}"
        if self.status:
            tail += f" {self.status}"
        if self.location:
            tail += f" {self.location}"
        if self.action == "rewrite":
            tail += f" {self.uri if self.internal_redirect or self.passthrough else self.filename}"
            if self.query is not None:
                tail += f"?{self.query}"
            if self.internal_redirect:
                tail += " [internal redirect]"
        if self.message:
            tail += f" ({self.message})"
        lines.append(tail)
        lines.extend(f"unsupported: {u}" for u in self.unsupported)
        return "\n".join(lines)
