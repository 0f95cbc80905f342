"""A ``RewriteCond %{HTTP:NAME} pattern`` is checked by one function for every such condition,
which reads the header's name from the condition (issue 10: a 1 MB ``[OR]`` chain of 24,000
distinct ``RewriteCond %{HTTP:X-N} ^vN$`` kept, per condition a request reached, a slotted
checker and a slotted header resolver, their bound methods and the name's lower case, ~340
bytes: 21.3x the file to lint), and its answers, ``%N`` and ``Vary`` are those of the traced
code, which expands the test string as any other."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest

from confmig.model.mapping import StatCache
from confmig.model.rewrite import RewriteConfig, RewriteRequest, apply, evaluate_directory
from confmig.model.rewrite.expand import lone_header
from confmig.syntax import Directive, parse_text

_STARTS = itertools.count(200_000, 100_000)  # each chain's numbers new to the caches


def config_of(text: str) -> RewriteConfig:
    nodes = [d for d in parse_text(text, "t").nodes if isinstance(d, Directive)]
    for d in nodes:
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    return RewriteConfig.from_directives(nodes, "directory", "/srv/www/")


def chain(n: int, start: int, ornext: bool) -> str:
    last = start + n - 1
    return ("RewriteEngine On\n"
            + "".join(f"RewriteCond %{{HTTP:X-{i}}} ^v{i}$"
                      + (" [OR]" if ornext and i < last else "") + "\n"
                      for i in range(start, start + n))
            + "RewriteRule ^ - [F]\n")


def outcome(config: RewriteConfig, headers: dict[str, str], trace: bool
            ) -> tuple[str, str, list[str]]:
    request = RewriteRequest(uri="/a", headers=headers, fs=StatCache())
    out = evaluate_directory(config, request, "/srv/www/a", "/srv/www/", trace=trace)
    return out.action, out.uri, sorted(out.vary)


def kept_by_a_request(n: int, ornext: bool) -> float:
    """Bytes a request over a chain of ``n`` distinct conditions leaves behind."""
    start = next(_STARTS)
    config = config_of(chain(n, start, ornext))
    # (no X- header: every [OR] condition is evaluated; all of them: every AND one holds)
    headers = {"Host": "h"} if ornext else {f"X-{i}": f"v{i}" for i in range(start, start + n)}
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    outcome(config, headers, trace=False)
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return kept


@pytest.mark.parametrize("ornext", [True, False])
def test_a_request_over_a_chain_of_distinct_headers_keeps_nothing_per_condition(
        ornext: bool) -> None:
    """Marginal bytes per condition that one request keeps, between chains of 1,500 and 4,500
    conditions: with ``[OR]`` (no header: every condition fails) ~260 before (the checker and
    resolver), none now; without (every header there: every condition holds) ~1,010 before
    (those, and each pattern's search function with its cells besides its compiled pattern),
    ~210 now (the compiled pattern, kept by the condition's Regex once a subject got past the
    literal ``^vN`` starts with)."""
    kept_by_a_request(300, ornext)  # (warm-up: imports, first-use tables)
    small, large = kept_by_a_request(1_500, ornext), kept_by_a_request(4_500, ornext)
    per_condition = (large - small) / 3_000
    assert per_condition < (16 if ornext else 260), f"{per_condition:.0f} bytes a condition"


def test_the_test_strings_that_are_one_header() -> None:
    assert lone_header("%{HTTP:X-1}") == "X-1"
    assert lone_header("%{http:Accept}") == "Accept"
    assert lone_header("%{HTTP:a{b}}") == "a{b}"
    for text in ("%{HTTP:}", "%{HTTP_HOST}", "%{HTTP:X}y", "x%{HTTP:X}", "%{HTTP:X}%{HTTP:Y}",
                 "%{HTTPS}", "%{ENV:X-1}", "%{HTTP:X", "%{HTTP:a}b}", "%{LA-U:X}"):
        assert lone_header(text) is None, text


CASES = [
    # (conditions, headers): the same answer, %N and Vary through the shared checker and
    # through the traced code
    ("RewriteCond %{HTTP:X-A} ^v(\\d)$\n", {"X-A": "v7"}),
    ("RewriteCond %{HTTP:X-A} ^v(\\d)$\n", {"x-a": "v8"}),
    ("RewriteCond %{HTTP:X-A} ^v(\\d)$\n", {"X-A": "w"}),
    ("RewriteCond %{HTTP:X-A} ^v(\\d)$\n", {}),
    ("RewriteCond %{HTTP:X-A} !^v\n", {"X-A": "v1"}),
    ("RewriteCond %{HTTP:X-A} !^v\n", {}),
    ("RewriteCond %{HTTP:X-A} ^$\n", {}),
    ("RewriteCond %{HTTP:X-A} ^V(.*) [NC]\n", {"X-A": "vq"}),
    ("RewriteCond %{http:host} ^(h.*)$\n", {"Host": "h1"}),
    ("RewriteCond %{HTTP:Host} ^(h.*)$\n", {"Host": "x"}),
    ("RewriteCond %{HTTP:X-A} ^a [OR]\nRewriteCond %{HTTP:X-B} ^(b)\n", {"X-B": "b"}),
    ("RewriteCond %{HTTP:X-A} ^a [OR]\nRewriteCond %{HTTP:X-B} ^(b)\n", {"X-A": "a"}),
    ("RewriteCond %{HTTP:X-A} ^a\nRewriteCond %{HTTP:X-B} ^(b)\n", {"X-A": "a", "X-B": "b"}),
    ("RewriteCond %{HTTP:X-A} ^a [NV]\nRewriteCond %{HTTP:X-B} ^(b)\n",
     {"X-A": "a", "X-B": "b"}),
    ("RewriteCond %{HTTP:X-A} ^a\nRewriteCond %{HTTP:X-B} !^(b)\n", {"X-A": "a", "X-B": "b"}),
    ('RewriteCond "%{HTTP:X A}" ^(a)\n', {"X A": "a"}),
]


@pytest.mark.parametrize(("conds", "headers"), CASES)
def test_answers_are_those_of_the_traced_code(conds: str, headers: dict[str, str]) -> None:
    text = f"RewriteEngine On\n{conds}RewriteRule ^ /to/%1 [R=302]\n"
    fast = outcome(config_of(text), headers, trace=False)
    assert fast == outcome(config_of(text), headers, trace=True)
    [rule] = config_of(text).rules
    assert all(apply._checker(c) in (apply._header_holds, apply._header_fails)
               for c in rule.conditions)
