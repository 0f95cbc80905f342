"""What the rewrite model makes on a rule's first run — its pattern's search function, its
conditions' checkers, the function of all its conditions — is one function for the rules and
conditions alike, not one each (issue 10: a 1 MB file of 1,199 copies of three templates kept
~1.7 MB of equal closures at SEC002's requests), and the answers stay those of the traced
code, which makes none of them."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

import pytest

from confmig.model.mapping import StatCache
from confmig.model.rewrite import RewriteConfig, RewriteRequest, apply, evaluate_directory
from confmig.model.rewrite.regex import Regex
from confmig.syntax import Directive, parse_text

BLOCK = ("RewriteCond %{{REQUEST_FILENAME}} {negate}-d\n"
         "RewriteCond %{{HTTP_HOST}} {negate}^www\\.(.+)$ {nc}\n"
         "RewriteRule ^(.*)/x(\\d*)$ /index.php?p=$1 [L]\n")


@pytest.fixture(autouse=True)
def empty_tables() -> Iterator[None]:
    """The process-wide tables of shared checkers, empty: what earlier tests left in them
    changes nothing here."""
    apply._SHARED_CHECKS.clear()
    yield
    apply._SHARED_CHECKS.clear()


def rewrite_config(text: str) -> RewriteConfig:
    nodes = [n for n in parse_text(text, "t").nodes if isinstance(n, Directive)]
    return RewriteConfig.from_directives(nodes, "directory", "/srv/www/")


def run(config: RewriteConfig, host: str = "example.com") -> str:
    request = RewriteRequest(uri="/a/b/x1", headers={"Host": host}, fs=StatCache())
    return evaluate_directory(config, request, "/srv/www/a/b/x1", "/srv/www/",
                              trace=False).action


def search_function(regex: Regex) -> object:
    return object.__getattribute__(regex, "_search")


def test_equal_rules_share_what_their_first_run_makes() -> None:
    config = rewrite_config("RewriteEngine On\n" + BLOCK.format(negate="", nc="") * 3)
    assert run(config) == "none"   # (-d fails for every copy: each rule and condition ran)
    first, *others = config.rules
    assert first.conditions_check is not None
    for rule in others:
        assert rule.conditions_check is first.conditions_check
        assert search_function(rule) is search_function(first)
        for cond, first_cond in zip(rule.conditions, first.conditions, strict=True):
            assert cond.check is not None and cond.check is first_cond.check
    again = Regex(first.pattern)
    again.search("a/x1")
    assert search_function(again) is search_function(first)


def test_conditions_that_differ_keep_their_own_answers() -> None:
    """Conditions alike but for ``!`` are not given each other's function; conditions alike
    but for ``[NC]`` are where the function reads the pattern from the condition (a regex)."""
    plain = rewrite_config("RewriteEngine On\n" + BLOCK.format(negate="", nc=""))
    negated = rewrite_config("RewriteEngine On\n" + BLOCK.format(negate="!", nc=""))
    nocase = rewrite_config("RewriteEngine On\n" + BLOCK.format(negate="", nc="[NC]"))
    for config in (plain, negated, nocase):
        run(config, "WWW.example.com")
    checks = [[c.check for c in config.rules[0].conditions]
              for config in (plain, negated, nocase)]
    assert checks[0][0] is not checks[1][0] and checks[0][1] is not checks[1][1]
    assert checks[0][0] is checks[2][0] and checks[0][1] is checks[2][1]
    # /srv/www/a/b is no directory here: only the negated block's conditions can hold
    assert run(negated, "example.com") == "rewrite"
    assert run(plain, "www.example.com") == run(nocase, "WWW.example.com") == "none"


def test_running_many_equal_rules_keeps_next_to_nothing_per_rule() -> None:
    """Per rule of 300 copies of a block, what a request over all of them leaves behind
    (each rule's pattern matched, its first condition failed): 1,358 bytes of closures, cells
    and lists a rule before, 57 now."""
    n = 300
    config = rewrite_config("RewriteEngine On\n" + BLOCK.format(negate="", nc="") * n)
    run(rewrite_config("RewriteEngine On\n" + BLOCK.format(negate="", nc="")))  # (warm-up)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    assert run(config) == "none"
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert kept / n < 120, f"{kept / n:.0f} bytes a rule"


def test_full_tables_still_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past their bound the tables drop the least recently used functions, not stop taking
    new ones (issue 10: filled once by a process's earlier files, they shared nothing more)."""
    monkeypatch.setattr(apply, "_MAX_SHARED_CHECKS", 8)
    run(rewrite_config("RewriteEngine On\n" + "".join(
        f"RewriteCond %{{HTTP_HOST}}/{i} ^h{i}/\nRewriteRule ^ - [E=X{i}:1]\n"
        for i in range(20))), "h19")
    assert len(apply._SHARED_CHECKS) == 8
    test_equal_rules_share_what_their_first_run_makes()
    assert len(apply._SHARED_CHECKS) == 8


def test_a_conditions_own_checker_is_not_kept() -> None:
    """A condition without a fast checker (``-s``) goes through the generic code, which is
    given the condition on each call: neither it nor its rule has a function of its own, and
    the table keeps no function holding the condition."""
    config = rewrite_config("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} -s\n"
                            "RewriteCond %{HTTP_HOST} ^www\\.\nRewriteRule ^ - [F]\n")
    assert run(config) == "none"
    [rule] = config.rules
    assert rule.conditions_check is apply._every
    assert rule.conditions[0].check is apply._apply_cond
    assert len(apply._SHARED_CHECKS) == 1  # (the HTTP_HOST one)
