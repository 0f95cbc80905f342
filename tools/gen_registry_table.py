#!/usr/bin/env python3
"""Regenerate ``confmig/apache/data/registry.tsv`` (what a run reads the directive registry
from, one line a name) from ``directives.json`` and ``third_party.json``.

    python tools/gen_registry_table.py [--check]

With ``--check``, write nothing and exit 1 when the file is not current.  Run it after
``tools/gen_registry.py`` or an edit of ``third_party.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from confmig.apache.registry import REGISTRY_TABLE, render_table  # noqa: E402

TABLE = ROOT / "confmig" / "apache" / "data" / REGISTRY_TABLE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    text = render_table()
    current = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
    if args.check:
        print(f"{TABLE}: {'current' if text == current else 'NOT current'}")
        return 0 if text == current else 1
    if text != current:
        TABLE.write_text(text, encoding="utf-8")
        print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
