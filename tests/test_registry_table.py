"""``confmig/apache/data/registry.tsv``, what a run reads the directive registry from (issue 17:
decoding all of the data files was the largest part of a lint hook's own work): current, and
the same registry as the data files'."""

from __future__ import annotations

from pathlib import Path

from confmig.apache import data_text
from confmig.apache.registry import (
    REGISTRY_TABLE,
    Registry,
    registry,
    render_table,
    source_entries,
)

ROOT = Path(__file__).resolve().parents[1]


def test_the_table_is_current() -> None:
    """Regenerate it with ``python tools/gen_registry_table.py`` when this fails."""
    assert data_text(REGISTRY_TABLE) == render_table()


def test_the_table_is_the_registry_of_the_data_files() -> None:
    from_table = Registry.from_table(data_text(REGISTRY_TABLE))
    from_files = Registry.from_entries(source_entries())
    assert list(from_table) == list(from_files) and len(from_files) > 1000
    assert from_table.get("RewriteRule") == from_files.get("RewriteRule") is not None
    assert from_table.get_all("CacheEnable") == from_files.get_all("CacheEnable")
    assert len(from_table.get_all("CacheEnable")) == 2  # Apache's first, then LiteSpeed's
    assert from_table.get("Files") == from_files.get("<Files>") is not None


def test_a_lookup_decodes_only_its_name() -> None:
    table = Registry.from_table(data_text(REGISTRY_TABLE))
    assert table.get("Options") is not None
    assert not any(isinstance(e, str) for e in table._by_key["options"])
    assert all(isinstance(e, str) for e in table._by_key["rewriterule"])
    assert registry().get("rewriterule") == table.get("RewriteRule")
