"""``lint --format json|sarif`` stream the document a finding at a time (issue 10: 47,620
findings peaked at +129 MB): the pieces are exactly ``json.dumps(..., indent=2)`` of the whole
document, which the other reporter tests check."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths
from confmig.lint.reporters import Format, LintReport
from confmig.lint.reporters.json import json_chunks, result_json
from confmig.lint.reporters.sarif import sarif_chunks, sarif_log

ROOT = Path(__file__).resolve().parents[2]


def _printed(result: LintResult, fmt: Format) -> str:
    buffer = io.StringIO()
    LintReport(result, fmt).print(Console(file=buffer))
    return buffer.getvalue()


def _results(tmp_path: Path) -> list[LintResult]:
    many = tmp_path / "many"
    many.mkdir()
    (many / ".htaccess").write_text('Header set X-A "b c"\n' * 50 + "RewriteEngin On\n")
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / ".htaccess").write_text("Options -Indexes\n")
    odd = LintResult(notes=['a note with "findings": [] and\nnew lines', '"results": []'],
                     errors=["x.conf:1: \udce9 not UTF-8"])
    return [lint_paths([p], settings=Settings(cache=False))
            for p in (many, clean, ROOT / "fixtures" / "demo-site")] + [odd]


def test_streamed_documents_are_the_whole_documents(tmp_path: Path) -> None:
    results = _results(tmp_path)
    assert len(results[0].findings) >= 50 and not results[1].findings
    for result in results:
        whole = json.dumps(result_json(result), indent=2)
        assert "".join(json_chunks(result)) == whole
        assert _printed(result, Format.json) == whole + "\n"
        whole = json.dumps(sarif_log(result), indent=2)
        assert "".join(sarif_chunks(result)) == whole
        assert _printed(result, Format.sarif) == whole + "\n"


def _peak(chunks: Callable[[LintResult], Iterator[str]], result: LintResult) -> tuple[int, int]:
    """(peak of Python's allocations while writing the pieces away, the document's size)."""
    sink = io.StringIO()
    list(chunks(result))  # warm: the rule names, imports
    tracemalloc.start()
    size = 0
    for piece in chunks(result):
        size += len(piece)
        sink.write(piece)
        sink.seek(0)
        sink.truncate()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, size


@pytest.mark.parametrize("chunks", [json_chunks, sarif_chunks])
def test_streaming_holds_one_finding_at_a_time(
        tmp_path: Path, chunks: Callable[[LintResult], Iterator[str]]) -> None:
    """Writing 5,000 findings' document costs what writing none costs (the SARIF rules'
    metadata, the document around the findings), plus a small part of its size."""
    (tmp_path / "many").mkdir()
    (tmp_path / "many" / ".htaccess").write_text('Header set X-A "b c"\n' * 5000)
    result = lint_paths([tmp_path / "many"], settings=Settings(cache=False))
    assert len(result.findings) >= 5000
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / ".htaccess").write_text("Options -Indexes\n")
    fixed, _ = _peak(chunks, lint_paths([tmp_path / "none"], settings=Settings(cache=False)))
    peak, size = _peak(chunks, result)
    assert peak < fixed + size / 20, (peak, fixed, size)
