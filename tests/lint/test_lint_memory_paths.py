"""What issue 10's memory work changed in the linter and the model it asks, pinned on
behaviour: a file that thousands of sections of one access file match is merged without a
recursion per section, and DUP002 keeps its keys as hashes without confusing two keys that
share one."""

from __future__ import annotations

from confmig.lint.engine import lint_text
from confmig.lint.rules.dup.dup002_duplicate_directive import _Seen
from confmig.syntax import parse_text


def test_sec002_merges_thousands_of_matching_sections_without_recursion() -> None:
    """Every one of the 1,500 ``<FilesMatch>`` matches /backup.sql: the request model
    merged them one recursive call per section (RecursionError, an internal error of SEC002,
    on a 1 MB file of the bench's templates) and held a key of every prefix's ids."""
    block = '<FilesMatch "\\.(bak|sql)$">\n    Require all denied\n</FilesMatch>\n'
    findings = lint_text(block * 1500, settings=None)
    assert not [f for f in findings if f.code == "LINT000"], findings[:3]
    sec002 = [f for f in findings if f.code == "SEC002"]
    assert len(sec002) == 1
    assert "not /.git/, /.env" in sec002[0].message
    assert "*.bak" not in sec002[0].message and "*.sql" not in sec002[0].message


def _directives(text: str):  # type: ignore[no-untyped-def]
    return [n for n in parse_text(text, ".htaccess").nodes if hasattr(n, "args")]


def test_dup002_keys_held_as_hashes_tell_collisions_apart() -> None:
    """(-1,) and (-2,) have the same hash in CPython: two different keys in one slot."""
    a, b, c = _directives("Options -Indexes\nOptions +Indexes\nOptions None\n")
    keys = {id(a): (-1,), id(b): (-2,), id(c): (-1,)}
    assert hash((-1,)) == hash((-2,))
    seen = _Seen(lambda d: keys[id(d)])
    assert seen.first((-1,), a) is None
    assert seen.first((-2,), b) is None       # a collision, not a repeat
    assert seen.first((-1,), c) is a          # the first with that key
    last = _Seen(lambda d: keys[id(d)])
    assert last.last((-1,), a) is None
    assert last.last((-2,), b) is None
    assert last.last((-1,), c) is a           # c replaces a, b stays
    assert last.last((-2,), a) is b
    assert last.last((-1,), b) is c


def test_dup002_findings_on_repeats_and_overrides() -> None:
    text = ('Header set X-A "1"\nHeader set X-B "1"\nHeader set x-a "2"\n'
            'Header set X-B "1"\nOptions -Indexes\nOptions -Indexes\n')
    found = [(f.line, f.message) for f in lint_text(text) if f.code == "DUP002"]
    assert found == [
        (1, 'Header set X-A 1 is overridden by line 3 (Header set x-a 2) in this .htaccess: '
            'only the later one applies'),
        (4, "Header set X-B 1 repeats line 2: the repetition changes nothing"),
        (6, "Options -Indexes repeats line 5: the repetition changes nothing"),
    ]
