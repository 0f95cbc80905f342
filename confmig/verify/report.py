"""What a verification found, as a rich table or JSON."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from confmig.convert.result import ConversionResult
from confmig.verify.compare import FieldDiff, Observed
from confmig.verify.probes import Probe

MAX_ROWS = 60


@dataclass
class ProbeResult:
    probe: Probe
    original: Observed
    converted: Observed
    diffs: list[FieldDiff]
    #: every differing field is excused by a note covering the probe's directory
    announced: bool
    #: the converted answer lets through what Apache refused (compare.wider): never excused
    wider: bool = False
    #: announced, and a note (a warning naming its answer) was needed to excuse it, not the
    #: untranslatable items alone
    by_note: bool = False

    @property
    def label(self) -> str:
        """The report's "announced" column."""
        return WIDER if self.wider else "yes" if self.announced else "NO"


WIDER = "NO: wider than Apache"


@dataclass
class VerifyReport:
    target: str
    source: str
    conversion: ConversionResult
    sent: int = 0
    planned: int = 0
    truncated: int = 0
    out_of_time: bool = False
    generation_out_of_time: bool = False
    elapsed: float = 0.0
    errored: int = 0  # requests neither server answered
    first_error: str | None = None
    differing: list[ProbeResult] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)  # the original's answers

    @property
    def unannounced(self) -> list[ProbeResult]:
        return [r for r in self.differing if not r.announced]

    @property
    def announced(self) -> list[ProbeResult]:
        return [r for r in self.differing if r.announced]

    @property
    def announced_by_note(self) -> list[ProbeResult]:
        """Announced answers a note excused (the rest: an untranslatable item did)."""
        return [r for r in self.announced if r.by_note]

    @property
    def wider(self) -> list[ProbeResult]:
        """Answers wider than Apache's (counted among the unexpected ones too)."""
        return [r for r in self.differing if r.wider]

    @property
    def compared(self) -> int:
        """Requests at least one server answered: only these check anything."""
        return self.sent - self.errored

    @property
    def incomplete(self) -> bool:
        """--timeout cut the probes or the requests: some of the site was never compared,
        so agreement on the rest is not a pass (--max-requests, a sample the user sized,
        is reported but does not make a run incomplete)."""
        return self.out_of_time or self.generation_out_of_time

    @property
    def exit_code(self) -> int:
        return 1 if self.unannounced or self.compared == 0 or self.incomplete else 0

    def summary(self) -> str:
        if self.compared == 0:
            verdict = f"NOT VERIFIED: no request was compared ({self._why_none()})"
        else:
            verdict = ("DIFFERENT" if self.unannounced else "INCOMPLETE" if self.incomplete
                       else "OK")
        parts = [f"{verdict}: {self.sent} requests to both servers in {self.elapsed:.1f}s",
                 f"{len(self.unannounced)} unexpected difference(s)"
                 + (f" ({len(self.wider)} wider than Apache)" if self.wider else ""),
                 self._announced_text()]
        if self.errored:
            parts.append(f"{self.errored} neither server answered ({self.first_error})")
        if self.truncated:
            parts.append(f"{self.truncated} more probes over --max-requests")
        if self.generation_out_of_time:
            parts.append(f"probe generation stopped by --timeout after {self.planned} "
                         "(raise --timeout to compare the rest)")
        if self.out_of_time:
            parts.append(f"stopped by --timeout after {self.sent} of {self.planned} "
                         "(raise --timeout to compare the rest)")
        seen = ", ".join(f"{code}×{n}" for code, n in sorted(self.statuses.items()))
        return "; ".join(parts) + (f" (original answered {seen})" if seen else "")

    def _announced_text(self) -> str:
        notes = len(self.announced_by_note)
        return (f"{len(self.announced)} announced by convert "
                f"({len(self.announced) - notes} untranslatable, {notes} notes)")

    def _why_none(self) -> str:
        if self.sent:
            return f"every request failed on both servers: {self.first_error}"
        if self.planned and self.out_of_time:
            return "--timeout ran out before the first request"
        if self.generation_out_of_time:
            return "--timeout ran out while generating the probes"
        return "there was nothing to probe"

    def print(self, out: Console, *, json_format: bool = False) -> None:
        if json_format:
            out.file.write(json.dumps(self.to_json(), indent=2) + "\n")
            return
        if self.differing:
            out.print(self.table())
        for note in self.conversion.untranslatable:
            out.print(f"untranslatable: {note}", markup=False)
        out.print(self.summary(), markup=False)

    def table(self) -> Table:
        table = Table(title=f"confmig verify --to {self.target}: {self.source}",
                      show_lines=False)
        for column in ("request", "field", "original", "converted", "announced"):
            table.add_column(column, overflow="fold")
        rows = 0
        for result in sorted(self.differing,
                             key=lambda r: (not r.wider, r.announced, r.probe.path)):
            for diff in result.diffs:
                if rows >= MAX_ROWS:
                    break
                table.add_row(result.probe.describe(), diff.field, _cut(diff.original),
                              _cut(diff.converted), result.label)
                rows += 1
        total = sum(len(r.diffs) for r in self.differing)
        if total > rows:
            table.caption = f"{total - rows} more differing fields not shown (--format json)"
        return table

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target, "source": self.source, "ok": self.exit_code == 0,
            "sent": self.sent, "compared": self.compared, "errored": self.errored,
            "planned": self.planned, "truncated": self.truncated,
            "out_of_time": self.out_of_time, "incomplete": self.incomplete,
            "generation_out_of_time": self.generation_out_of_time,
            "elapsed": round(self.elapsed, 3),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "wider": len(self.wider),
            "announced": len(self.announced),
            "announced_untranslatable": len(self.announced) - len(self.announced_by_note),
            "announced_by_note": len(self.announced_by_note),
            "differences": [{
                "request": r.probe.describe(), "method": r.probe.method, "path": r.probe.path,
                "headers": r.probe.shown_headers(), "why": r.probe.why,
                "directory": r.probe.directory, "announced": r.announced,
                "announced_by": ("note" if r.by_note else "untranslatable")
                if r.announced else None,
                "wider": r.wider,
                "fields": [{"field": d.field, "original": d.original,
                            "converted": d.converted} for d in r.diffs],
                "original": r.original.to_json(), "converted": r.converted.to_json(),
            } for r in self.differing],
            "conversion": self.conversion.to_json(),
            "summary": self.summary(),
        }


def _cut(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
