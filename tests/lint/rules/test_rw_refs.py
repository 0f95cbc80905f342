"""The reference scanner of the RW rules (``rw.refs.scan``): what ``do_expand`` in
mod_rewrite.c would expand in a test string or substitution, found by jumping from one
``\\``, ``$`` or ``%`` to the next (issue 10: it stepped a character at a time)."""

from __future__ import annotations

import pytest

from confmig.lint.rules.rw.refs import scan


@pytest.mark.parametrize(("text", "refs"), [
    ("", []),
    ("/plain/path.php", []),
    ("/x.php?q=$1&r=%2", [("rule", "1", 9), ("cond", "2", 14)]),
    ("\\$1$2", [("rule", "2", 3)]),                       # an escaped "$" is no reference
    ("\\\\$1", [("rule", "1", 2)]),                        # an escaped "\" escapes nothing more
    ("%{HTTP_HOST}/$1", [("var", "HTTP_HOST", 0), ("rule", "1", 13)]),
    ("${map:%{HTTP_HOST}|$1}", [("map", "map:%{HTTP_HOST}|$1", 0),
                                ("var", "HTTP_HOST", 6), ("rule", "1", 19)]),
    ("%{a{b}c}", [("var", "a{b}c", 0)]),                  # nested braces counted
    ("%{open $1", [("rule", "1", 7)]),                    # no closing brace: not a variable
    ("100%", []), ("$", []), ("$x %y", []),
])
def test_scan_finds_each_reference_once(text: str, refs: list[tuple[str, str, int]]) -> None:
    assert [(r.kind, r.name, r.offset) for r in scan(text)] == refs
