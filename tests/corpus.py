"""Where the shared real-world corpus lives, and which of its files are Apache's."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"


def apache_corpus_files() -> list[Path]:
    """Every Apache file of the corpus (not the nginx ones, not the manifest)."""
    if not CORPUS.is_dir():
        return []
    return sorted(
        p for p in CORPUS.rglob("*")
        if p.is_file() and p.name != "MANIFEST.tsv"
        and "h5bp-server-configs-nginx" not in p.parts
    )


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")
