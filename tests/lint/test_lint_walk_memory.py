"""What a file's walks keep (issue 10): the nodes once, no tuple or list per node or section.

The walk cache kept every node with its sections as two lists plus a tuple per section, and
the directives' two lists again: 2.8 MB through the whole lint of a 1 MB file of ``<Files>``
blocks, though most rules read the nodes alone.  The pairs a rule is handed stay the same
values in the same order (checked here against a plain recursive walk).
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from confmig.lint.context import FileContext, make_environment
from confmig.lint.engine import server_contexts
from confmig.load import load_config
from confmig.syntax import Directive, Node, Section
from tests.lint.test_lint_scopes import file_context


def _reference(nodes: list[Node], above: tuple[Section, ...] = ()
               ) -> list[tuple[Node, tuple[Section, ...]]]:
    out: list[tuple[Node, tuple[Section, ...]]] = []
    for node in nodes:
        out.append((node, above))
        if isinstance(node, Section):
            out.extend(_reference(node.children, (*above, node)))
    return out


def _same(pairs: object, expected: list[tuple[Node, tuple[Section, ...]]]) -> bool:
    got = list(pairs)  # type: ignore[call-overload]
    return len(got) == len(expected) and all(
        a is c and len(b) == len(d) and all(x is y for x, y in zip(b, d, strict=True))
        for (a, b), (c, d) in zip(got, expected, strict=True))


def _scopes_agree(ctx: FileContext, expected: list[tuple[Node, tuple[Section, ...]]]) -> bool:
    """The scopes hold the directives of ``expected``, each in a scope whose sections are
    the outermost of its own (a ``<Limit>`` is no scope of its own)."""
    above = {id(n): sections for n, sections in expected}
    got = [(d, s.enclosing) for s in ctx.scopes() for d in s.directives]
    return sorted(id(d) for d, _ in got) == sorted(above) and all(
        len(enclosing) <= len(above[id(d)])
        and all(x is y for x, y in zip(enclosing, above[id(d)], strict=False))
        for d, enclosing in got)


def test_the_walks_keep_nothing_per_section() -> None:
    """Walking a file of 5,000 ``<Files>`` blocks every way the rules do, then grouping its
    scopes, keeps under 40 bytes a block (the old walk cache: ~110)."""
    blocks = 5000
    ctx = file_context("<Files a>\nHeader set A b\n</Files>\n" * blocks)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        assert sum(1 for _ in ctx.walk()) == 2 * blocks
        assert sum(1 for _ in ctx.walk()) == 2 * blocks
        assert sum(1 for n, above in ctx.walk()
                   if isinstance(n, Directive) and above[-1].name == "Files") == blocks
        assert ctx.directive_names == frozenset({"header"})
        assert len(ctx.scopes()) == blocks
        gc.collect()  # (and CPython's free lists of tuples: memory no walk holds)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 40 * blocks, f"{held / blocks:.0f} bytes a block"


def test_a_file_without_sections_is_walked_in_its_own_list() -> None:
    ctx = file_context("Header set A b\n# note\nHeader set B c\n")
    assert ctx.walked_nodes() is ctx.nodes
    assert [d.raw.strip() for d in ctx.directive_nodes()] == ["Header set A b",
                                                             "Header set B c"]
    only = file_context("Header set A b\nHeader set B c\n")
    assert only.directive_nodes() is only.nodes


TEXT = """\
Header set A b
<Files a>
  # inside
  Header set B c
  <If "true">
    Header set C d
    <Limit GET>
      Require all granted
    </Limit>
  </If>
  Header set D e
</Files>
<IfModule mod_headers.c>
  Header set E f
</IfModule>
<Directory /x>
</Directory>
Header set F g
"""


def test_the_pairs_are_those_of_a_plain_walk() -> None:
    ctx = file_context(TEXT)
    expected = _reference(ctx.nodes)
    assert _same(ctx.walk(), expected)
    assert _same(ctx.walk(), expected)  # a second walk: the same pairs
    directives = [(n, above) for n, above in expected if isinstance(n, Directive)]
    assert _scopes_agree(ctx, directives)
    assert list(ctx.walked_nodes()) == [n for n, _ in expected]
    assert ctx.directive_nodes() == [n for n, _ in directives]
    # the <IfModule> is resolved away in the effective tree, kept as written
    assert list(ctx.raw_nodes()) == [n for n, _ in _reference(ctx.config.nodes)]
    assert list(ctx.raw_nodes()) != list(ctx.walked_nodes())


def test_a_server_file_included_in_a_section_is_walked_with_its_sections(
        tmp_path: Path) -> None:
    (tmp_path / "inc.conf").write_text("Header set A b\n<Files a>\nHeader set B c\n</Files>\n")
    main = tmp_path / "httpd.conf"
    main.write_text(f"<VirtualHost *:80>\nInclude {tmp_path}/inc.conf\n</VirtualHost>\n")
    env = make_environment(None, set())
    loaded = load_config(main)
    ctx = next(c for c in server_contexts(env, loaded) if c.path.endswith("inc.conf"))
    vhost = loaded.nodes[0]
    assert isinstance(vhost, Section)
    expected = [pair for node in ctx.nodes for pair in _reference([node], (vhost,))]
    assert [n.name for n, _ in expected] == ["Header", "Files", "Header"]
    assert _same(ctx.walk(), expected)
    assert _scopes_agree(ctx, [p for p in expected if isinstance(p[0], Directive)])
    assert [s.enclosing for s in ctx.scopes()] == [(vhost,), (vhost, expected[1][0])]
