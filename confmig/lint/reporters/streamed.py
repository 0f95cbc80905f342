"""``json.dumps(document, indent=2)`` in pieces, with one list of the document given as a
stream: a lint of 47,620 findings peaked at +129 MB building every finding's dict and the
whole text before printing it (issue 10); streamed, one finding is held at a time."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

# json.dumps(item, indent=2) makes an encoder per call: one for every item instead.
_ENCODE = json.JSONEncoder(indent=2).encode


def indented_chunks(document: dict[str, Any], hole: str, depth: int,
                    items: Iterable[Any]) -> Iterator[str]:
    """The pieces of ``json.dumps(document, indent=2)`` where the value ``[]`` of key ``hole``,
    ``depth`` containers deep (1: a key of ``document`` itself), is replaced by ``items``.

    The key must be unique at that depth: ``"hole": []`` on a line of its own cannot come from
    inside a string (a string's newlines and quotes are escaped)."""
    text = json.dumps(document, indent=2)
    marker = "\n" + "  " * depth + json.dumps(hole) + ": []"
    at = text.index(marker) + len(marker) - 1  # at the "]"
    assert text.count(marker) == 1, hole
    inner = "\n" + "  " * (depth + 1)
    empty = True
    for item in items:
        yield text[:at] if empty else ","
        yield inner + _ENCODE(item).replace("\n", inner)
        empty = False
    if empty:
        yield text
        return
    yield "\n" + "  " * depth + text[at:]
