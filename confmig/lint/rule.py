"""The unit of linting: one rule, with its code, docs, examples and check.

A rule is a small class in its own file under ``confmig/lint/rules/``; registering it is
decorating it with :func:`register` (the package is walked, so the file is all it takes).
Its docs (``summary``, ``rationale``, ``bad``, ``good``) are shown by ``confmig rule CODE``
and its examples are run by the test suite: ``bad`` must produce at least one finding with
the rule's code, ``good`` none.  Codes are stable: never reuse or renumber one.

Prefixes (select or ignore by prefix, ruff style):

=======  ==========================================================
SYN      syntax and structure, argument counts, unknown directives
CTX      context and AllowOverride: what makes Apache answer 500 or ignore a line
RW       mod_rewrite mistakes
DEP      deprecated (2.2) syntax
SEC      security
PERF     performance
DUP      logic repeated across files
LINT     the linter's own comments (inline suppressions)
=======  ==========================================================

How a rule looks at a file (the engine, :mod:`confmig.lint.engine`, calls these):

* ``directives`` names what the rule looks at, gixy-style: lower-case directive names,
  ``<name`` for a section, :data:`ANY_DIRECTIVE` / :data:`ANY_SECTION` for all of them.
  The engine walks each file once and hands every matching node to ``check_directive``,
  instead of every rule walking every file.  ``kinds`` says which files (``htaccess``,
  ``server``); the directives of an access file Apache never opens (``AllowOverride
  None``) are not dispatched: nothing in it has any effect, and CTX003 says so.
* ``check_file`` is the whole-file hook, for rules that need a file's sections or lines
  together (mod_rewrite blocks, duplicates, the raw text); ``file_directives`` says which
  directives a file must have for it to find anything (the others are not called).
* ``check_tree`` sees every file of the run at once (duplication across files, depth);
  what it needs of each access file it takes from ``summarize`` (see there).

A lint run imports only the rule modules a file needs (issue 17: a hook pays for the
start): the rules index (``confmig/lint/rules/index.py``, generated from the rule classes by
``python tools/gen_rule_index.py``) says where each rule lives and what it looks at, so a
rule that only looks at directives a file does not have is never imported, nor a whole-file
rule whose ``file_directives`` the file does not have (:class:`confmig.lint.dispatch.RuleSet`).
The index is used only while it names exactly the rule files on disk (otherwise every rule
is imported, as :func:`all_rules` does), a rule already imported is described by its class,
and tests/lint/test_rule_index.py fails when the index is not what the classes say.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from confmig.lint.finding import Finding, Severity
from confmig.syntax import Directive, Node, Section

if TYPE_CHECKING:
    from confmig.lint.context import FileContext, LintContext

ANY_DIRECTIVE = "*"        # in Rule.directives: every directive
ANY_SECTION = "<*"         # in Rule.directives: every section
KINDS = frozenset({"htaccess", "server"})


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]                 # kebab-case, e.g. "directive-not-allowed-in-htaccess"
    summary: ClassVar[str]              # one line, what is wrong
    rationale: ClassVar[str]            # why it matters, what Apache does
    bad: ClassVar[str]                  # a .htaccess (or server config: example_kind) tripping it
    good: ClassVar[str]                 # the fixed version
    severity: ClassVar[Severity] = Severity.warning
    example_kind: ClassVar[str] = "htaccess"     # "htaccess" or "server"
    # What is in force when the examples are linted (confmig.lint.testing.lint_example):
    example_allow_override: ClassVar[tuple[str, ...]] = ("All",)
    example_allow_override_list: ClassVar[tuple[str, ...]] = ()
    example_modules: ClassVar[tuple[str, ...] | None] = None    # None: the assumed defaults
    # Files the examples name, written in ServerRoot when they are linted (name → text).
    example_files: ClassVar[dict[str, str]] = {}
    fix: ClassVar[str | None] = None             # default hint
    # What check_directive is given (see the module docstring).
    directives: ClassVar[frozenset[str]] = frozenset()
    kinds: ClassVar[frozenset[str]] = KINDS
    # check_file is called only for a file whose effective directives include one of these
    # lower-case names ("rewrite*": any name with that prefix); empty: for every file.  A
    # rule names them when it can find nothing in a file without them.
    file_directives: ClassVar[frozenset[str]] = frozenset()
    # True: a finding of this rule on a line another rule reports as an error is dropped (the
    # other rule says it more precisely; the engine filters, whatever rules a run selects).
    defers_to_errors: ClassVar[bool] = False

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterable[Finding]:
        """Findings for one directive (or section) named in ``directives``; ``parents``
        are its enclosing sections, outermost first."""
        return ()

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        """Findings in one file (an access file or one server config file)."""
        return iter(())

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        """Findings that need every file at once (duplication, depth)."""
        return iter(())

    def summarize(self, ctx: FileContext) -> object:
        """What ``check_tree`` needs from one access file (small and picklable), taken when
        the file is checked — in a pool worker for a large tree — and handed to
        ``check_tree`` through :meth:`LintContext.summary`, so the tree rules need neither
        the parsed file nor to redo the work.  None: nothing."""
        return None

    def finding(self, node: Node, message: str | None = None, hint: str | None = None,
                severity: Severity | None = None) -> Finding:
        return Finding(
            code=self.code, message=message or self.summary, file=node.file, line=node.line,
            column=node.column, severity=severity or self.severity, hint=hint or self.fix,
        )


_RULES: dict[str, type[Rule]] = {}
RULES_PACKAGE = "confmig.lint.rules"
# A rule file: its family's prefix, three digits, then words (``rw002_slash_in_perdir``).
RULE_FILE = re.compile(r"[a-z]+\d{3}_\w+")


def register(cls: type[Rule]) -> type[Rule]:
    if cls.code in _RULES and _RULES[cls.code] is not cls:
        raise ValueError(f"rule code {cls.code} registered twice")
    _RULES[cls.code] = cls
    return cls


def rule_modules() -> list[str]:
    """Every module below :data:`RULES_PACKAGE` (rule files and the helpers beside them)."""
    import pkgutil  # (a lint run asks rule_files, which lists the rule files alone)

    package = importlib.import_module(RULES_PACKAGE)
    return sorted(info.name for info in pkgutil.walk_packages(package.__path__,
                                                              RULES_PACKAGE + "."))


@functools.cache
def _discover() -> None:
    for name in rule_modules():
        importlib.import_module(name)


def all_rules() -> list[type[Rule]]:
    """Every rule, sorted by code: each module of the rules package is imported once, and
    its rule files register themselves (no list to keep up to date)."""
    _discover()
    return sorted(_RULES.values(), key=lambda r: r.code)


# -- the rules index ---------------------------------------------------------------------------

HOOKS = ("check_directive", "check_file", "check_tree", "summarize")
INDEX_MODULE = RULES_PACKAGE + ".index"


@dataclass(frozen=True)
class RuleEntry:
    """What a run needs to know of a rule before importing it."""

    code: str
    module: str
    name: str
    directives: frozenset[str]     # what check_directive is given (empty: it has none)
    kinds: frozenset[str]
    hooks: frozenset[str]          # the methods of HOOKS the rule implements
    file_directives: frozenset[str] = frozenset()  # Rule.file_directives (check_file's)

    @property
    def dispatched_only(self) -> bool:
        """Only ever called for the directives it names: importing it can wait until a file
        has one of them."""
        return self.hooks == {"check_directive"} and not (
            self.directives & {ANY_DIRECTIVE, ANY_SECTION})

    @property
    def file_hook_only(self) -> bool:
        """Only a whole-file hook, called only for a file with one of ``file_directives``:
        importing it can wait until a file has one of them."""
        return self.hooks == {"check_file"} and bool(self.file_directives)


def entry_of(cls: type[Rule]) -> RuleEntry:
    hooks = frozenset(h for h in HOOKS if getattr(cls, h) is not getattr(Rule, h))
    directives = cls.directives if "check_directive" in hooks else frozenset()
    file_directives = cls.file_directives if "check_file" in hooks else frozenset()
    return RuleEntry(cls.code, cls.__module__, cls.name, frozenset(directives),
                     frozenset(cls.kinds), hooks, frozenset(file_directives))


def rule_files() -> list[str]:
    """The module of every rule file on disk (a directory listing: nothing is imported)."""
    package = importlib.import_module(RULES_PACKAGE)
    found = []
    for base in package.__path__:
        for family in sorted(os.scandir(base), key=lambda e: e.name):
            if not family.is_dir() or not os.path.isfile(os.path.join(family.path,
                                                                      "__init__.py")):
                continue
            for entry in os.scandir(family.path):
                stem, ext = os.path.splitext(entry.name)
                if ext == ".py" and RULE_FILE.fullmatch(stem):
                    found.append(f"{RULES_PACKAGE}.{family.name}.{stem}")
    return sorted(found)


@functools.cache
def rule_index() -> dict[str, RuleEntry]:
    """Every rule of the package by code, from the generated index when it names exactly the
    rule files on disk; otherwise (a rule file added or removed since) from the classes, all
    imported."""
    from confmig.lint.rules.index import INDEX

    if sorted(str(e["module"]) for e in INDEX.values()) == rule_files():
        return {code: RuleEntry(code, str(e["module"]), str(e["name"]),
                                frozenset(e["directives"]), frozenset(e["kinds"]),
                                frozenset(e["hooks"]), frozenset(e["file_directives"]))
                for code, e in INDEX.items()}
    return {cls.code: entry_of(cls) for cls in all_rules()}


def rule_entries() -> dict[str, RuleEntry]:
    """Every rule by code, sorted: the index's word, and a rule's own for one already imported
    (or registered from elsewhere, as tests do)."""
    entries = dict(rule_index())
    for code, cls in _RULES.items():
        entries[code] = entry_of(cls)
    return dict(sorted(entries.items()))


def rule_codes() -> list[str]:
    return list(rule_entries())


def rule_names() -> dict[str, str]:
    return {code: entry.name for code, entry in rule_entries().items()}


def rule_class(code: str) -> type[Rule]:
    """The rule with this code, its module imported if it was not."""
    if code not in _RULES:
        importlib.import_module(rule_index()[code].module)
    return _RULES[code]


def _quote(text: str) -> str:
    """A Python string literal in double quotes (the names are plain ASCII words)."""
    assert re.fullmatch(r"[\w.<>*-]+", text), text
    return f'"{text}"'


def render_index() -> str:
    """The source of ``confmig/lint/rules/index.py``, from the rule classes."""
    lines = ['"""Every lint rule: its module, its name and what it looks at, so that a run imports',
             "only the rules a file needs (:mod:`confmig.lint.rule`).",
             "",
             "Generated from the rule classes by ``python tools/gen_rule_index.py``: do not edit.",
             '"""',
             "",
             "INDEX: dict[str, dict[str, str | tuple[str, ...]]] = {"]
    for cls in all_rules():
        entry = entry_of(cls)
        lines += [f"    {_quote(entry.code)}: {{",
                  f'        "module": {_quote(entry.module)},',
                  f'        "name": {_quote(entry.name)},']
        for field in ("directives", "kinds", "hooks", "file_directives"):
            values = [_quote(v) for v in sorted(getattr(entry, field))]
            text = ", ".join(values) + ("," if len(values) == 1 else "")
            if len(text) < 70:
                lines.append(f'        "{field}": ({text}),')
            else:
                lines += [f'        "{field}": (', *(f"            {v}," for v in values),
                          "        ),"]
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"
