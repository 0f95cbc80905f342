"""A ``<RequireAll/Any/None>`` group of plain Require lines keeps only its section (issue 10).

A group was an AuthzNode (96 bytes) with a tuple of its members (56 for two) and a
RequireLine a line (40 each): bench/parse_big_file.py's ``requireall`` shape (13,628
two-line ``<RequireAll>`` blocks) kept 2.7 MB of them, 10.5x the file at the peak.  A group
whose members are one RequireLine for each of its section's directives is now a
:class:`~confmig.model.merge.authz.RequireGroup` (40 bytes) that makes its members from its
section's lines when they are read; any other group is still an AuthzNode.
"""

from __future__ import annotations

import copy
import gc
import pickle
import tracemalloc

import pytest

from confmig.model.merge import SectionBuilder
from confmig.model.merge import authz as authz_module
from confmig.model.merge.authz import AuthzNode, RequireGroup, RequireLine
from confmig.model.sections import SectionCollector
from confmig.syntax import Directive, parse_text


def _builder(text: str) -> SectionBuilder:
    nodes = parse_text(text).nodes
    builder = SectionBuilder("htaccess", "/srv/www/")
    SectionCollector(builder, "htaccess", None, []).feed(nodes)
    return builder


def _tree(node: object) -> tuple[object, ...]:
    """What the request model and the plan read of a node, its members' too."""
    return (node.op, node.negate, node.provider, node.args, node.methods,  # type: ignore[attr-defined]
            node.merged, node.directive, node.describe(),  # type: ignore[attr-defined]
            tuple(_tree(c) for c in node.children))  # type: ignore[attr-defined]


TEXTS = {
    "two lines": "<RequireAll>\nRequire all granted\nRequire not ip 10.1.2.3\n</RequireAll>\n",
    "comments and blanks": ("<RequireAll>\n# one\n\nRequire ip 10.0.0.0/8\n  # two\n"
                            "Require  host  a.example\n\n</RequireAll>\n"
                            "<RequireAll>\nRequire all granted\n</RequireAll>\n"),
    "none in all": ("<RequireAll>\nRequire valid-user\n<RequireNone>\nRequire user bob\n"
                    "Require group x\n</RequireNone>\n</RequireAll>\n"),
    "not all in all": ("<RequireAll>\nRequire valid-user\n<RequireNotAll>\n"
                       "Require user bob\n</RequireNotAll>\n</RequireAll>\n"),
    "any in any (flattened)": ("<RequireAny>\nRequire ip 10.0.0.1\n<RequireAny>\n"
                               "Require ip 10.0.0.2\n</RequireAny>\n</RequireAny>\n"),
    "limit": ("<Limit POST>\n<RequireAll>\nRequire valid-user\nRequire not ip 10.9\n"
              "</RequireAll>\n</Limit>\n"),
    "limit inside": ("<RequireAll>\nRequire valid-user\n<Limit GET>\nRequire ip 10.9\n"
                     "</Limit>\n</RequireAll>\n"),
    "other directive": ("<RequireAll>\nRequire valid-user\nAuthType Basic\n"
                        "Require ip 10.9\n</RequireAll>\n"),
    "expr": ('<RequireAll>\n<RequireAny>\nRequire expr "%{REMOTE_ADDR} == \'1.2.3.4\'"\n'
             "Require method GET\n</RequireAny>\nRequire all granted\n</RequireAll>\n"
             "Require all denied\n"),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_group_read_from_its_section_reads_as_an_authz_node(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same tree (fields, directives, members) as when every group is an AuthzNode."""
    text = TEXTS[name]
    builder = _builder(text)
    assert not builder.errors, builder.errors
    got = builder.build()["authz"].section
    monkeypatch.setattr(authz_module, "_GROUP_CLASSES_MAX", 0)
    monkeypatch.setattr(authz_module, "_GROUP_CLASSES", {})
    old = _builder(text)
    assert not old.errors
    want = old.build()["authz"].section
    # the nodes are each build's own: compare their directives by line
    def lines(tree: tuple[object, ...]) -> tuple[object, ...]:
        *head, directive, describe, children = tree
        return (*head, getattr(directive, "line", None), describe,
                tuple(lines(c) for c in children))  # type: ignore[arg-type]
    assert lines(_tree(got)) == lines(_tree(want))
    assert all(not isinstance(c, RequireGroup) for c in want.children)


def test_which_groups_keep_only_their_section() -> None:
    kinds = {}
    for name, text in TEXTS.items():
        builder = _builder(text)
        kinds[name] = [type(c).__name__ for c in builder.build()["authz"].section.children]
    assert kinds == {
        "two lines": ["RequireGroup"],
        "comments and blanks": ["RequireGroup", "RequireGroup"],
        "none in all": ["AuthzNode"],  # (its <RequireNone> is a RequireGroup: below)
        "not all in all": ["AuthzNode"],
        "any in any (flattened)": ["RequireLine", "RequireLine"],
        "limit": ["AuthzNode"],  # (its lines are limited to POST)
        "limit inside": ["AuthzNode"],
        "other directive": ["AuthzNode"],
        "expr": ["AuthzNode", "RequireLine"],
    }
    for name, inner in (("none in all", ["RequireLine", "RequireGroup"]),
                        ("expr", ["RequireGroup", "RequireLine"])):
        group = _builder(TEXTS[name]).build()["authz"].section.children[0]
        assert [type(c).__name__ for c in group.children] == inner


def test_a_group_s_members_are_its_lines_each_time_they_are_read() -> None:
    text = TEXTS["comments and blanks"]
    nodes = parse_text(text).nodes
    builder = SectionBuilder("htaccess", "/srv/www/")
    SectionCollector(builder, "htaccess", None, []).feed(nodes)
    [any_, all_] = builder.build()["authz"].section.children
    section = nodes[0]
    directives = [n for n in section.children if isinstance(n, Directive)]
    for _ in range(2):
        members = any_.children
        assert all(isinstance(m, RequireLine) for m in members)
        assert [m.directive for m in members] == directives
        assert [m.describe() for m in members] == ["Require ip 10.0.0.0/8",
                                                   "Require host a.example"]
    assert (any_.op, any_.negate, any_.methods, any_.provider, any_.merged) == (
        "and", False, None, None, False)
    assert (all_.op, all_.describe()) == ("and", "<RequireAll>")
    assert [m.describe() for m in all_.children] == ["Require all granted"]
    assert any_ == any_ and any_ != all_
    for again in (pickle.loads(pickle.dumps(any_)), copy.copy(any_), copy.deepcopy(any_)):
        assert type(again) is type(any_)
        assert (again.op, again.negate, [m.describe() for m in again.children]) == (
            "and", False, ["Require ip 10.0.0.0/8", "Require host a.example"])


def test_group_classes_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the cap a group of a new kind is an AuthzNode (a class each kind of group)."""
    monkeypatch.setattr(authz_module, "_GROUP_CLASSES", {})
    monkeypatch.setattr(authz_module, "_GROUP_CLASSES_MAX", 2)
    text = "".join(f"<RequireAll>\n{line}\n</RequireAll>\n" for line in (
        "Require valid-user", "Require all granted", "Require ip 10.1"))
    builder = _builder(text + text)
    kinds = [type(c).__name__ for c in builder.build()["authz"].section.children]
    assert kinds == ["RequireGroup", "RequireGroup", "AuthzNode"] * 2
    assert len(authz_module._GROUP_CLASSES) == 2
    assert isinstance(AuthzNode(), AuthzNode)


N = 2_000


def test_a_two_line_group_keeps_little_besides_its_lines() -> None:
    """Bytes the builder and its config keep a ``<RequireAll>`` of two lines (its group, the
    lists and tuple of groups and of the builder's directives): 267 (an AuthzNode, its tuple
    and two RequireLines: 232 of them), now 78 (a RequireGroup: 40)."""
    text = "".join(f"<RequireAll>\nRequire all granted\nRequire not ip 10.{i // 256}."
                   f"{i % 256}.1\n</RequireAll>\n" for i in range(N))
    nodes = parse_text(text).nodes
    for section in nodes:
        for d in section.children:
            d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    builder = SectionBuilder("htaccess", "/srv/www/")
    collector = SectionCollector(builder, "htaccess", None, [])
    gc.collect()
    tracemalloc.start()
    collector.feed(nodes)
    config = builder.build()
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert not builder.errors and len(config["authz"].section.children) == N
    assert kept / N < 110, f"{kept / N:.0f} bytes a group"
