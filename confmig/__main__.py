"""``python -m confmig`` and the ``confmig`` console script.

A plain ``confmig lint`` command line runs without building the typer app of every command
(:func:`confmig.lint.command.fast_main`, issue 17: a hook pays for the start); everything
else, and any lint command line that parser leaves alone, is the typer app's
(:func:`confmig.cli.main`).
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["lint"]:
        from confmig.lint.command import fast_main

        code = fast_main(argv)
        if code is not None:
            sys.exit(code)
    from confmig.cli import main as typer_main

    typer_main()


if __name__ == "__main__":
    main()
