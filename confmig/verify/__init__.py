"""``confmig verify``: prove a conversion on real servers.

The original site (real Apache, ``AllowOverride All``, the ``.htaccess`` tree) and the converted
one (real Apache with the generated configuration, the ``.htaccess`` files out of reach) run
side by side on ``127.0.0.1``; the same probes go to both and every answer is compared
(:mod:`confmig.verify.compare`).  A difference the converter announced as untranslatable is
reported but does not fail the run — unless the converted answer is wider than Apache's
(:func:`confmig.verify.compare.wider`), which no note excuses.

Layout: :mod:`~confmig.verify.probes` (+ :mod:`~confmig.verify.regexgen`) decide what to send,
:mod:`~confmig.verify.targets` are the servers, :mod:`~confmig.verify.runconfig` makes a whole
configuration runnable privately, :mod:`~confmig.verify.session` runs it all and
:mod:`~confmig.verify.report` prints it.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from confmig.verify.report import VerifyReport
from confmig.verify.session import VerifyError, VerifyRequest, verify
from confmig.verify.targets import ApacheTarget, Target


def run_verify(request: VerifyRequest, progress: Console | None = None) -> VerifyReport:
    """:func:`verify`, with a progress bar on *progress* when it is a terminal."""
    if progress is None or not progress.is_terminal:
        return verify(request)
    with Progress(TextColumn("probing"), BarColumn(), MofNCompleteColumn(),
                  console=progress, transient=True) as bar:
        task = bar.add_task("probing", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return verify(request, advance)


__all__ = ["ApacheTarget", "Target", "VerifyError", "VerifyReport", "VerifyRequest",
           "run_verify", "verify"]
