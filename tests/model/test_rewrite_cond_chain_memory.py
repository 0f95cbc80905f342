"""A chain of distinct RewriteConds (issue 10: a 1 MB ``[OR]`` chain of 24,000
``RewriteCond %{HTTP:X-N} ^vN$`` took 51x the file to lint): a parsed condition makes nothing
for its test string until it is evaluated, what an evaluation makes for it is small, and the
process-wide caches of test strings, templates and resolvers are bounded."""

from __future__ import annotations

import itertools
import tracemalloc

from confmig.model.mapping import StatCache
from confmig.model.rewrite import RewriteConfig, RewriteRequest, evaluate_directory
from confmig.model.rewrite.expand import compile_template, compile_value, expand
from confmig.model.rewrite.state import EvalState
from confmig.model.rewrite.variables import lookup_variable, resolver
from confmig.syntax import Directive, parse_text

_STARTS = itertools.count(100_000, 100_000)  # each chain's numbers new to the caches
HEADERS = "RewriteCond %{{HTTP:X-{i}}} ^v{i}$"
HOSTS = "RewriteCond %{{HTTP_HOST}} ^h{i}$"


def chain(n: int, start: int = 0, ornext: bool = True, line: str = HEADERS) -> str:
    """``n`` distinct conditions (``[OR]`` but the last) of one ``[F]`` rule."""
    last = start + n - 1
    return ("RewriteEngine On\n"
            + "".join(line.format(i=i) + (" [OR]" if ornext and i < last else "") + "\n"
                      for i in range(start, start + n))
            + "RewriteRule ^ - [F]\n")


def directives(text: str) -> list[Directive]:
    return [d for d in parse_text(text, "t").nodes if isinstance(d, Directive)]


def run(config: RewriteConfig, trace: bool = False, headers: dict[str, str] | None = None
        ) -> str:
    request = RewriteRequest(uri="/a", headers={"Host": "h", **(headers or {})},
                             fs=StatCache())
    return evaluate_directory(config, request, "/srv/www/a", "/srv/www/",
                              trace=trace).action


def kept_per_condition(n: int, ornext: bool = True, line: str = HEADERS
                       ) -> tuple[float, float]:
    """(parse, parse and one request over every condition): bytes kept per condition of a
    chain of ``n`` distinct conditions, their directives made (and their words read) first."""
    nodes = directives(chain(n, next(_STARTS), ornext, line))
    for d in nodes:
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    tracemalloc.start()
    config = RewriteConfig.from_directives(nodes, "directory", "/srv/www/")
    parsed = tracemalloc.get_traced_memory()[0]
    assert run(config) == "none"  # (no header: every [OR] condition is evaluated)
    ran = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del config
    return parsed / n, ran / n


def marginal(ornext: bool = True, line: str = HEADERS) -> tuple[float, float]:
    """:func:`kept_per_condition` between a chain of 1,500 conditions and one of 4,500 (the
    bounded caches and tables full in both, so that they cancel out)."""
    kept_per_condition(300, ornext, line)  # (warm-up: imports, first-use tables)
    small = kept_per_condition(1_500, ornext, line)
    large = kept_per_condition(4_500, ornext, line)
    parse, ran = ((large[k] * 4_500 - small[k] * 1_500) / 3_000 for k in (0, 1))
    return parse, ran


def test_a_chain_of_distinct_conditions_keeps_little_per_condition() -> None:
    """Per condition of an ``[OR]`` chain of distinct ``%{HTTP:X-N}`` tests, the parse kept
    ~1,350 bytes (the condition and its Regex, ~200-250, and a template, its tokens and a
    resolver made for its test string, though nothing evaluated it), parse and a request over
    the chain ~2,040 (a closure over two cells and a bound search per condition, a resolver's
    closure over three cells per header name); now ~200-250 and ~460-560 (a slotted checker
    and a slotted resolver, each with its bound method, and the header's lower-case name)."""
    parse, ran = marginal()
    assert parse < 300, f"parse: {parse:.0f} bytes a condition"
    assert ran < 650, f"parse and a request: {ran:.0f} bytes a condition"


def test_an_and_chain_and_host_tests_too() -> None:
    """The same without ``[OR]`` (the rule's conditions' checkers are made together, and a
    pair per condition: ~1,660 and ~2,540 bytes a condition before, ~250 and ~720-750 now)
    and with ``%{HTTP_HOST}`` tests (one resolver for all: after a request ~650 and ~780
    without ``[OR]`` before, ~340 and ~400 now)."""
    for ornext, line, bound in ((False, HEADERS, 850), (True, HOSTS, 450), (False, HOSTS, 520)):
        parse, ran = marginal(ornext, line)
        assert parse < 300, f"{ornext} {line}: parse {parse:.0f} bytes a condition"
        assert ran < bound, f"{ornext} {line}: {ran:.0f} bytes a condition"


def test_a_condition_keeps_no_template() -> None:
    """The traced evaluation expands a condition's test string through the bounded cache of
    templates: the condition keeps none (it kept the one its first traced evaluation made,
    in a slot of every condition)."""
    config = RewriteConfig.from_directives(directives(chain(3)), "directory", "/srv/www/")
    conds = config.rules[0].conditions
    assert all(c.check is None and not hasattr(c, "template") for c in conds)
    assert run(config, trace=True, headers={"X-1": "v1"}) == "forbidden"  # X-0 fails, X-1 holds
    assert all(not hasattr(c, "template") for c in conds)
    assert compile_template("%{HTTP:X-0}") is compile_template("%{HTTP:X-0}")
    assert run(config, headers={"X-2": "v2"}) == "forbidden"
    assert run(config, headers={"X-2": "v3"}) == "none"


def test_the_caches_of_test_strings_and_variables_are_bounded() -> None:
    """Resolving and expanding 6,000 more distinct names keeps nothing more than a bounded
    cache keeps, not a resolver, a template and token tuples per name (~2,100 bytes a name were
    kept, for the life of the process)."""
    request = RewriteRequest(uri="/a", headers={"X-1": "one"}, fs=StatCache())
    config = RewriteConfig.from_directives(directives(chain(1)), "directory", "/srv/www/")
    assert run(config, headers={"X-0": "v0"}) == "forbidden"

    def use(names: range) -> None:
        for i in names:
            resolver(f"HTTP:X-{i}")
            compile_value(f"%{{HTTP:X-{i}}}")
            compile_template(f"%{{HTTP:X-{i}}}")
            compile_template(f"/x/%{{HTTP:X-{i}}}")

    # (what tracemalloc saw allocated is what it counts freed: measured from a first set of
    # names to a second, so that the second drops what the first added)
    tracemalloc.start()
    use(range(50_000, 56_000))
    first = tracemalloc.get_traced_memory()[0]
    use(range(60_000, 66_000))
    kept = tracemalloc.get_traced_memory()[0] - first
    tracemalloc.stop()
    assert kept / 6_000 < 20, f"{kept / 6_000:.0f} bytes a name"
    assert resolver.cache_info().maxsize == 1024
    # what they give is unchanged
    st = EvalState(request, None, {}, "/srv/www/a", "", trace=False)
    assert lookup_variable("HTTP:X-1", st) == "one" and st.vary_this == ["X-1"]
    assert expand("/x/%{HTTP:X-1}/%{HTTP:X-2}", st) == "/x/one/"
