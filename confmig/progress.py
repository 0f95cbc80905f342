"""A rich progress display for long walks, shown only on a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

SHOW_AFTER = 200  # directories: small trees finish before a bar would help


@contextmanager
def directory_progress(console: Console | None) -> Iterator[Callable[[int], None] | None]:
    """Yield a callback counting directories walked, or None when not on a terminal (or
    without a rich console: confmig lint prints off a terminal without rich)."""
    if console is None or not console.is_terminal:
        yield None
        return
    # (imported here: a hook or an editor, never on a terminal, does not pay for it)
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("walking docroot: {task.completed} dirs"),
                        TimeElapsedColumn(), console=console, transient=True)
    task = progress.add_task("walk", total=None)
    started = False

    def on_directory(count: int) -> None:
        nonlocal started
        if not started and count >= SHOW_AFTER:
            progress.start()
            started = True
        if started:
            progress.update(task, completed=count)

    try:
        yield on_directory
    finally:
        if started:
            progress.stop()
