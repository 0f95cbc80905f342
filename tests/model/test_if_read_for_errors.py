"""An ``<If>`` of ``Header`` lines is read for its errors without a builder (issue 10).

The model reads each ``<If>``/``<ElseIf>``/``<Else>`` of a section once for the errors its
lines give (they are the parent's: Apache answers 500 for them whether or not a request
enters it) and builds its configuration only when a request finds it true
(:class:`confmig.model.sections.IfSection`).  When its lines are ``Header`` lines (comments,
blank lines) that reading makes no builder: it checks each line
(:func:`confmig.model.merge.headers.header_problem`), which parses no line alike but for its
name and a value that is its own format.  The errors are those of the build: the same
messages, for the same lines, in the same order.
"""

from __future__ import annotations

import pytest

from confmig.apache.modules import ModuleSet
from confmig.apache.registry import OVERRIDE_CLASSES
from confmig.model.htaccess import htaccess_permit
from confmig.model.merge import OptsState, SectionBuilder
from confmig.model.merge import headers as headers_module
from confmig.model.sections import Permit, SectionCollector, _Within, build_if_section
from confmig.syntax import Section, parse_text

HEADER_LINES = [
    "Header set X-A 1",
    "Header set X-A",
    "Header",
    "Header always set X-A \"a b\" c d",
    "HEADER set X-A 1 early extra",
    "Header bogus X-A 1",
    "Header set X-A 1 env=",
    "Header set X-A 1 env=!",
    "Header set X-A 1 \"expr=%{QUERY_STRING} ==\"",
    "Header set X-A 1 \"expr=%{QUERY_STRING} == 'a'\"",
    "Header set X-A %Z",
    "Header set X-A %{FOO}e",
    "Header set X-A \"expr=%{QUERY_STRING\"",
    "Header set X-A \"expr=%{file:/etc/hostname}\"",
    "Header echo [",
    "Header echo ^X-",
    "Header edit X-A ( b",
    "Header edit X-A a",
    "Header edit* X-A a b",
    "Header unset X-A 1 2",
    "Header unset X-A",
    "Header set X-A v bogus",
    "Header onsuccess merge X-A v",
    "Header note X-A v",
    "Header set X-A \"a\\\\b\"",
    "Header set \"X A\" v",
    "Header set X-A \"\"",
    "Header set X-A a\x01b",
    "Header set X-B 2",  # (alike X-A 1 but for name and value: no new entry, no error)
    "Header set X-C 3 bogus",
    "Header set X-D 4 bogus",
]
OTHER_BODIES = [
    "Header set X-A 1\nExpiresActive On\nHeader set X-A\n",  # another directive: a builder
    "Header set X-A 1\n<If \"true\">\nHeader bogus X-B 1\n</If>\n",  # a section
    "<Limit GET>\nHeader set X-A 1 2 3 4\n</Limit>\n",
    "# a comment\n\nHeader set X-A 1 bogus\n",
    "RewriteRule ^a$ b [BOGUS]\nHeader set X-A\n",
    "SetEnvIf\nHeader set X-A 1\n",
]


def _bodies() -> list[str]:
    lines = HEADER_LINES + HEADER_LINES  # (again: the second reading finds lines met before)
    return [line + "\n" for line in lines] + ["".join(f"{line}\n" for line in lines)] \
        + OTHER_BODIES


def _permits() -> dict[str, Permit | None]:
    modules = ModuleSet.debian_default()
    modules.add("headers")
    modules.add("rewrite")

    def opts(override: frozenset[str], nonfatal: frozenset[str] = frozenset()) -> OptsState:
        return OptsState(0, 0, 0, override, nonfatal, 0, frozenset())

    return {"none": None,
            "all": htaccess_permit(opts(OVERRIDE_CLASSES), modules),
            "authconfig": htaccess_permit(opts(frozenset({"AuthConfig"})), modules),
            "nonfatal": htaccess_permit(opts(frozenset({"AuthConfig"}),
                                             frozenset({"Override", "Unknown"})), modules)}


def _if(body: str, kind: str = "If") -> Section:
    opening = f"<{kind} \"%{{QUERY_STRING}} == 'x'\">" if kind != "Else" else "<Else>"
    (node,) = [n for n in parse_text(f"{opening}\n{body}</{kind}>\n", "t").nodes
               if isinstance(n, Section)]
    return node


def _built_errors(node: Section, permit: Permit | None, parent: SectionBuilder) -> list:
    """The errors of the <If>'s lines as a builder fed them gives them (the section's build)."""
    b = _Within(parent, permit).builder()
    SectionCollector(b, "if", permit, []).feed(node.children)
    return b.errors


@pytest.mark.parametrize("permit_name", ["none", "all", "authconfig", "nonfatal"])
@pytest.mark.parametrize("restricted", [True, False])
def test_the_errors_read_are_the_builds(permit_name: str, restricted: bool) -> None:
    permit = _permits()[permit_name]
    for body in _bodies():
        for kind in ("If", "ElseIf", "Else"):
            node = _if(body, kind)
            parent = SectionBuilder("htaccess" if restricted else "directory", "/d/")
            expected = _built_errors(node, permit, parent)
            parent.errors.clear()
            if kind == "ElseIf":
                parent.ifs.append(object())  # (after an <If>: not ours to check here)
            section = build_if_section(node, permit, parent)
            assert section is not None
            assert parent.errors == expected, (permit_name, body, kind)
            # and the section built when a request enters it has them too
            if "RewriteRule" not in body:  # (mod_rewrite's are the build's own)
                assert list(section.section().errors) == expected


def test_an_if_of_header_lines_alike_parses_one(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    parse = headers_module._parse_header

    def counted(*args: object) -> object:
        calls.append(args)
        return parse(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(headers_module, "_parse_header", counted)
    headers_module._PARSED.clear()
    parent = SectionBuilder("htaccess", "/d/")
    nodes = [_if(f"Header set X-N-{i} value{i}\n") for i in range(50)]
    within = _Within(parent, None)
    sections = [build_if_section(node, None, parent, within) for node in nodes]
    assert parent.errors == [] and len(calls) == 1
    # a section built when entered has its line's own value
    (entry,) = sections[7].section().config["headers"].onsuccess
    assert (entry.name, entry.value, entry.value_at) == ("X-N-7", "value7", -1)
