"""``confmig explain --requests FILE``: read, evaluate, print (JSON Lines, or a summary)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from confmig.load import Workspace
from confmig.replay.logs import BadLine, read_requests
from confmig.replay.run import acting_directives, replay
from confmig.replay.summary import AfterConvert, Summary

SHOWN = 15  # rows per table of the text summary


def run_replay(workspace: Workspace, path: Path, *, json_lines: TextIO | None,
               after_convert: AfterConvert | None = None) -> Summary:
    """Evaluate every request of *path*; with *json_lines*, write each answer there as one
    JSON object per line, then the summary as the last line.  *after_convert*: what sending
    the same requests to the original and the converted server found (``--against``)."""
    summary = Summary(after_convert=after_convert)
    for item, fired, first in replay(workspace, read_requests(path)):
        summary.add(item, fired, first)
        if json_lines is not None:
            record = ({"line": item.line, "error": item.why} if isinstance(item, BadLine)
                      else item.as_json())
            json_lines.write(json.dumps(record) + "\n")
    summary.finish(acting_directives(workspace))
    if json_lines is not None:
        json_lines.write(json.dumps({"summary": summary.as_json()}) + "\n")
    return summary


def print_summary(summary: Summary, out: Console) -> None:
    parts: list[object] = [Text(f"{summary.total} requests; "
                                + ", ".join(f"{code}×{n}" for code, n in
                                            sorted(summary.statuses.items()))
                                + (f"; {len(summary.bad)} bad line(s)" if summary.bad else ""),
                                style="bold")]
    parts.append(_table("Denied or failed", ("status", "decided by", "requests"),
                        [(str(s), by, str(n)) for (s, by), n in summary.denied.most_common()]))
    parts.append(_table("Redirected", ("status", "Location", "requests"),
                        [(str(s), loc, str(n))
                         for (s, loc), n in summary.redirected.most_common()]))
    parts.append(_table("Sent by rewrite rules to", ("file", "requests"),
                        [(f, str(n)) for f, n in summary.rewritten_to.most_common()]))
    parts.append(_table("Never fired on this traffic", ("where", "directive"),
                        [(f"{f}:{n}", text) for f, n, text in summary.never_fired]))
    parts.append(_table("Bad lines (not evaluated)", ("line", "why"),
                        [(str(b.line), b.why) for b in summary.bad]))
    parts.append(_table("Not modelled exactly", ("note", "requests"),
                        [(k, str(n)) for k, n in summary.unsupported.most_common()]))
    after = summary.after_convert
    if after is not None:
        parts.append(Text(
            f"After convert --to {after.target}: {len(after.differences)} of {after.compared} "
            f"compared request(s) would answer differently (the same requests sent to the "
            f"original Apache and to the converted {after.target}, as verify --requests does)"
            + ("" if after.complete else f"; only {after.sent} of {after.planned} were sent "
               "(time or count limit)"), style="bold"))
        parts.append(_table(
            f"Would answer differently after convert --to {after.target}",
            ("line", "request", "original → converted", "announced"),
            [(d.where, d.request, "; ".join(f"{f}: {a} → {b}" for f, a, b in d.fields),
              "yes" if d.announced else "no") for d in after.differences]))
    out.print(Group(*[p for p in parts if p is not None]))


def _table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table | None:
    if not rows:
        return None
    table = Table(title=title, title_justify="left", show_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows[:SHOWN]:
        table.add_row(*(Text(cell) for cell in row))
    if len(rows) > SHOWN:
        table.add_row(*(Text(f"… {len(rows) - SHOWN} more") if i == 0 else Text("")
                        for i in range(len(columns))))
    return table
