"""A SetEnvIf line's entry is its own Regex and reads its pattern and variables from its
directive's words (issue 10: a lint of a 1 MB file of 19,288 distinct ``SetEnvIfNoCase
User-Agent "^BotN[0-9]+" botN`` lines took 27x the file: per line a Regex, a search function
with its cells and compiled pattern made for the empty subject when the line was read, the
line's words, the attribute in lower case and the variables, ~1,150 bytes), and it answers
as before."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest

from confmig.model.merge import SectionBuilder, SetEnvIfEntry
from confmig.model.sections import SectionCollector, finish_section
from confmig.syntax import Directive, parse_text

_STARTS = itertools.count(300_000, 100_000)  # each file's patterns new to the caches


def entries(text: str, context: str = "htaccess") -> list[SetEnvIfEntry]:
    nodes = parse_text(text).nodes
    builder = SectionBuilder(context, "/srv/www/")
    SectionCollector(builder, context, None, []).feed(nodes)
    assert not builder.errors, builder.errors
    return list(builder.setenvif)


def kept(n: int) -> float:
    """Bytes the section of ``n`` distinct lines keeps, their words read first (as a lint
    does)."""
    start = next(_STARTS)
    nodes = parse_text("".join(f'SetEnvIfNoCase User-Agent "^Bot{i}[0-9]+" bot{i}\n'
                               for i in range(start, start + n))).nodes
    for d in nodes:
        assert isinstance(d, Directive)
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    builder = SectionBuilder("htaccess", "/srv/www/")
    SectionCollector(builder, "htaccess", None, []).feed(nodes)
    section = finish_section("htaccess", "/srv/www/.htaccess", None, builder, [])
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert len(section.config["setenvif"].entries) == n
    return size


def test_a_setenvif_line_keeps_little() -> None:
    """Marginal bytes a line between files of 1,500 and 4,500 distinct lines (the compile
    cache full in both): ~1,010 before, ~105 now (the entry and its slot in the section;
    ~150 seen in a run of tests/model, which leaves more in the process's tables)."""
    kept(300)  # (warm-up)
    small, large = kept(1_500), kept(4_500)
    per_line = (large - small) / 3_000
    assert per_line < 250, f"{per_line:.0f} bytes a line"


def test_reading_a_line_searches_nothing() -> None:
    """Neither the compiled pattern nor a search function is kept until a subject is
    searched; the empty subject is answered from the compile."""
    [entry] = entries('SetEnvIfNoCase User-Agent "^Bot1[0-9]+" bot1\n')
    assert getattr(entry, "_search", None) is None
    assert entry.empty_match is None
    assert getattr(entry, "_search", None) is None
    assert entry.search("xbot12") is None and entry.search("bOT12").group(0) == "bOT12"


@pytest.mark.parametrize(("line", "context", "fields"), [
    ('SetEnvIfNoCase User-Agent "^Bot1[0-9]+" bot1',
     "htaccess", ("User-Agent", "user-agent", "^Bot1[0-9]+", (("bot1", "1"),), False, False)),
    ("SetEnvIf Request_URI \\.gif$ img !x y=a\\$1 z=!q",
     "htaccess", ("Request_URI", "request_uri", "\\.gif$",
                  (("img", "1"), ("x", None), ("y", "a\\$1"), ("z", None)), False, False)),
    ("SetEnvIf X-A abc --early v", "server",
     ("X-A", "x-a", "abc", (("v", "1"),), True, True)),
    ("SetEnvIf X-A abc --early= v", "server",
     ("X-A", "x-a", "abc", (("v", "1"),), True, True)),
    ("SetEnvIf X-A abc --early v", "htaccess",
     ("X-A", "x-a", "abc", (("--early", "1"), ("v", "1")), False, True)),
    ("SetEnvIf X-A abc --early=x", "server",
     ("X-A", "x-a", "abc", (("--early", "x"),), False, True)),
    ('BrowserMatchNoCase "^Mozilla/(\\d)" moz=$1', "htaccess",
     ("User-Agent", "user-agent", "^Mozilla/(\\d)", (("moz", "$1"),), False, False)),
    ("BrowserMatch MSIE ie", "htaccess",
     ("User-Agent", "user-agent", "MSIE", (("ie", "1"),), False, True)),
    ('SetEnvIf "X A" "a b" "v=c d"', "htaccess",
     ("X A", "x a", "a b", (("v", "c d"),), False, True)),
])
def test_an_entry_reads_what_its_line_says(line: str, context: str,
                                            fields: tuple[object, ...]) -> None:
    [entry] = entries(line + "\n", context)
    assert (entry.attribute, entry.key, entry.source, entry.assignments, entry.early,
            entry.literal) == fields
    assert entry.regex is entry and entry.expr is None


def test_an_expression_line() -> None:
    [entry] = entries('SetEnvIfExpr "%{HTTP:X-A} == \'a\'" a=1 !b\n')
    assert entry.regex is None and entry.expr is not None
    assert entry.assignments == (("a", "1"), ("b", None)) and entry.attribute == ""


def test_entries_of_one_attribute_share_its_strings() -> None:
    first, second = entries('SetEnvIf X-Forwarded-For ^1 a\nSetEnvIf X-Forwarded-For ^2 b\n')
    assert first.attribute is second.attribute and first.key is second.key


def test_an_empty_subject_is_matched_as_before() -> None:
    """A header that is not there is matched as "": ``^$`` and ``.*`` match it, with their
    groups."""
    empty, anything, group = entries("SetEnvIf X-A ^$ a\nSetEnvIf X-A .* b\n"
                                     "SetEnvIf X-A ^(x?)$ c=$1\n")
    assert empty.empty_match is not None and empty.empty_match.group(0) == ""
    assert anything.empty_match is not None
    assert group.empty_match is not None and group.empty_match.count == 2
