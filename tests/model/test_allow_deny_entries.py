"""A section's Allow/Deny entries are kept as their directives and a number each (issue 10).

An :class:`AllowDeny` object a word was 64 bytes, and its tuple's slot 8: 2.8 MB of a 1 MB
file of ``Allow from 10.a.b.0/24`` lines (bench/parse_big_file.py's ``allow`` shape), alive
with the rest of its lint, and the builder's lists were copied into tuples at its end (both
held at once: the peak).  :class:`AllowDenyEntries` makes an entry when read.
"""

from __future__ import annotations

import copy
import gc
import pickle
import tracemalloc

from confmig.model.merge import AccessDir, AllowDeny, SectionBuilder
from confmig.model.sections import SectionCollector
from confmig.syntax import Directive, parse_text


def _nodes(text: str) -> list[Directive]:
    nodes = [n for n in parse_text(text).nodes if isinstance(n, Directive)]
    for d in nodes:
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    return nodes


def _access(text: str) -> AccessDir:
    builder = SectionBuilder("directory", "/srv/www/")
    SectionCollector(builder, "directory", None, []).feed(parse_text(text).nodes)
    assert not builder.errors, builder.errors
    access = builder.build()["access"]
    assert isinstance(access, AccessDir)
    return access


N = 3_000


def test_allow_lines_keep_little_besides_their_directives() -> None:
    nodes = _nodes("".join(f"Allow from 10.{i // 256}.{i % 256}.0/24\n" for i in range(N)))
    gc.collect()
    tracemalloc.start()
    builder = SectionBuilder("directory", "/srv/www/")
    for d in nodes:
        builder.directive(d)
    assert not builder.errors
    config = builder.build()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # 108 bytes a line kept before (an entry object, tuples copied from the lists), now ~32:
    # the builder's list of its directives, the access lines' and the entries' 12 bytes
    assert kept / N < 45, f"{kept / N:.0f} bytes a line"
    assert peak / N < 45, f"{peak / N:.0f} bytes a line at the peak"
    assert [e.value for e in config["access"].allows[:2]] == ["10.0.0.0/24", "10.0.1.0/24"]


TEXT = """\
Order Allow,Deny
Allow from 10.0.0.0/8 example.org env=let_in
Deny from env=!ok all
<Limit POST PUT>
Allow from all 127.0.0.1
</Limit>
Allow from ::1
Satisfy Any
"""


def test_entries_read_back_as_they_were_made() -> None:
    access = _access(TEXT)
    limit = frozenset({"POST", "PUT"})
    assert [(e.kind, e.at, e.methods, e.value, e.directive.line) for e in access.allows] == [
        ("ip", 1, None, "10.0.0.0/8", 2), ("host", 2, None, "example.org", 2),
        ("env", 3, None, "let_in", 2), ("all", 1, limit, "", 5), ("ip", 2, limit, "127.0.0.1", 5),
        ("ip", 1, None, "::1", 7)]
    assert [(e.kind, e.at, e.methods, e.value) for e in access.denies] == [
        ("nenv", 1, None, "ok"), ("all", 2, None, "")]
    assert [d.line for d in access.directives] == [1, 2, 3, 5, 7, 8]
    assert (access.order, access.satisfy) == ("allow,deny", "any")
    entries = tuple(access.allows)
    assert len(access.allows) == 6 and access.allows == entries and entries == access.allows
    assert access.allows[-1] == entries[-1] and access.allows[1:3] == entries[1:3]
    assert access.allows.index(entries[3]) == 3 and entries[4] in access.allows
    assert hash(access.allows) == hash(entries) and access.allows != access.denies
    assert isinstance(access.allows[0], AllowDeny)
    # an AccessDir made by hand keeps what it is given
    assert AccessDir(allows=entries).allows is entries and AccessDir().denies == ()


def test_a_section_s_config_copies_and_pickles() -> None:
    access = _access(TEXT)
    for again in (copy.copy(access), copy.deepcopy(access), pickle.loads(pickle.dumps(access))):
        assert [(e.kind, e.at, e.methods, e.value) for e in again.allows] == \
            [(e.kind, e.at, e.methods, e.value) for e in access.allows]
        assert [d.line for d in again.directives] == [d.line for d in access.directives]


def test_a_bad_word_adds_no_entry_of_its_line() -> None:
    builder = SectionBuilder("directory", "/srv/www/")
    for d in _nodes("Allow from 10.0.0.1 999.1.1.1\nDeny from a#b\nOrder deny,allow\n"):
        builder.directive(d)
    assert [m for _, m in builder.errors] == [
        "The specified IP address is invalid.", "No comments are allowed here"]
    access = builder.build()["access"]
    assert access.allows == () and access.denies == ()
    assert [d.lname for d in access.directives] == ["order"]
