#!/usr/bin/env python3
"""Regenerate ``confmig/lint/rules/index.py`` from the rule classes (every rule imported).

    python tools/gen_rule_index.py [--check]

With ``--check``, write nothing and exit 1 when the file is not current.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from confmig.lint.rule import render_index  # noqa: E402

INDEX = ROOT / "confmig" / "lint" / "rules" / "index.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    text = render_index()
    current = INDEX.read_text() if INDEX.exists() else ""
    if args.check:
        print(f"{INDEX}: {'current' if text == current else 'NOT current'}")
        return 0 if text == current else 1
    if text != current:
        INDEX.write_text(text)
        print(f"wrote {INDEX}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
