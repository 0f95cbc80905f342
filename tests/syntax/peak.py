"""The parse of a big access file with the memory it took (tests of nodes that stand for runs
of lines: blank lines, comment lines)."""

from __future__ import annotations

import tracemalloc

from confmig.syntax import ConfigFile, parse_bytes


def parse_with_peak(data: bytes) -> tuple[ConfigFile, int]:
    """*data* parsed as an ``.htaccess``, and the traced peak of the parse (the file's bytes
    were allocated before it, so they do not count)."""
    tracemalloc.start()
    try:
        config = parse_bytes(data, "big.htaccess", htaccess=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return config, peak
