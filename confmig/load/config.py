"""Load a configuration the way Apache reads it: Include, Define, ${VAR},
LoadModule and the read-time conditional sections, in file order.

The result keeps two views: ``files`` — every file as parsed (lossless, for
editing and for rules about what is written), and ``nodes`` — the effective
tree Apache goes on with (Includes spliced in, false conditionals dropped, true
ones unwrapped, variables substituted).  Every node keeps its own file and line.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from confmig.load.conditions import (
    CONDITIONAL_SECTIONS,
    ConditionError,
    ReadState,
    evaluate,
)
from confmig.load.includes import IncludeError, expand_include
from confmig.load.variables import resolve_vars
from confmig.syntax import ConfigFile, Directive, Node, ParseError, Section, parse_file
from confmig.syntax.parser import logical_text
from confmig.syntax.words import first_word, split_words

MAX_INCLUDE_DEPTH = 128


@dataclass
class IncludeEdge:
    """An ``Include`` at ``file:line`` and the files it read."""

    file: str
    line: int
    targets: list[str]


@dataclass
class LoadedConfig:
    main: str
    nodes: list[Node] = field(default_factory=list)
    files: dict[str, ConfigFile] = field(default_factory=dict)
    errors: list[ParseError] = field(default_factory=list)
    warnings: list[ParseError] = field(default_factory=list)
    includes: list[IncludeEdge] = field(default_factory=list)
    skipped_sections: list[Section] = field(default_factory=list)
    state: ReadState = field(default_factory=ReadState)

    @property
    def ok(self) -> bool:
        return not self.errors


class _Reader:
    def __init__(self, result: LoadedConfig, environ: Mapping[str, str], htaccess: bool) -> None:
        self.result = result
        self.state = result.state
        self.environ = environ
        self.htaccess = htaccess
        self.stack: list[str] = []

    def _error(self, node: Node, message: str) -> None:
        self.result.errors.append(ParseError(node.file, node.line, node.column, message))

    def read(self, path: Path) -> list[Node]:
        key = str(path)
        config = parse_file(path)
        self.result.files.setdefault(key, config)
        self.result.warnings.extend(config.warnings)
        if not config.ok:
            self.result.errors.extend(config.errors)
            return []
        self.stack.append(os.path.realpath(path))
        try:
            return self.walk(config.nodes)
        finally:
            self.stack.pop()

    def walk(self, nodes: list[Node]) -> list[Node]:
        out: list[Node] = []
        for node in nodes:
            if isinstance(node, Directive):
                out.extend(self._directive(self._substitute(node)))
            elif isinstance(node, Section):
                out.extend(self._section(self._substitute(node)))
            else:
                out.append(node)
        return out

    def _substitute(self, node: Directive | Section) -> Directive | Section:
        """Apply ``${VAR}`` to the whole logical line, then split it again."""
        if "${" not in node.raw:
            return node
        text = logical_text(node.raw)
        resolved, missing = resolve_vars(text, self.state.variables, self.environ)
        for name in missing:
            self.result.warnings.append(ParseError(
                node.file, node.line, node.column, f"Config variable ${{{name}}} is not defined"))
        if resolved == text:
            return node
        name, rest = first_word(resolved)
        if isinstance(node, Section):
            rest = rest[: rest.rfind(">")] if ">" in rest else rest
            name = name.rstrip(">")[1:]
        return dataclasses.replace(node, name=name, args=split_words(rest), args_text=rest.strip())

    def _directive(self, node: Directive) -> list[Node]:
        lname = node.lname
        if self.htaccess:
            return [node]
        if lname == "define" and node.args:
            self.state.defines.add(node.args[0])
            if len(node.args) > 1:
                self.state.variables[node.args[0]] = node.args[1]
        elif lname == "undefine" and node.args:
            self.state.defines.discard(node.args[0])
            self.state.variables.pop(node.args[0], None)
        elif lname == "serverroot" and node.args:
            self.state.server_root = Path(node.args[0])
        elif lname == "loadmodule" and len(node.args) >= 2:
            self.state.modules.add_loadmodule(node.args[0], node.args[1])
        elif lname in ("include", "includeoptional"):
            return self._include(node, optional=lname == "includeoptional")
        return [node]

    def _include(self, node: Directive, optional: bool) -> list[Node]:
        if len(node.args) != 1:
            self._error(node, f"{node.name} takes one argument")
            return []
        try:
            targets = expand_include(node.args[0], self.state.server_root, optional)
        except IncludeError as exc:
            self._error(node, f"{node.name}: {exc}")
            return []
        self.result.includes.append(IncludeEdge(node.file, node.line, [str(t) for t in targets]))
        out: list[Node] = []
        for target in targets:
            real = os.path.realpath(target)
            if real in self.stack:
                chain = " -> ".join([*self.stack[self.stack.index(real):], real])
                self._error(node, f"Include cycle: {chain}")
                continue
            if len(self.stack) >= MAX_INCLUDE_DEPTH:
                self._error(node, f"Exceeded the maximum Include nesting level of "
                                  f"{MAX_INCLUDE_DEPTH}")
                continue
            out.extend(self.read(target))
        return out

    def _section(self, node: Section) -> list[Node]:
        if node.lname in CONDITIONAL_SECTIONS:
            try:
                active = evaluate(node.lname, node.args_text, node.args, self.state)
            except ConditionError as exc:
                self._error(node, str(exc))
                return []
            if not active:
                if not node.closed:  # ap_soak_end_container hits the end of the file
                    self._error(node, f"Expected </{node.name}> before end of configuration")
                self.result.skipped_sections.append(node)
                return []
            return self.walk(node.children)
        return [dataclasses.replace(node, children=self.walk(node.children))]


def load_config(
    path: str | Path,
    *,
    defines: set[str] | None = None,
    state: ReadState | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadedConfig:
    """Load a server configuration file and everything it includes.

    ServerRoot (for relative Include paths) is the directory of ``path`` until a
    ``ServerRoot`` directive says otherwise.  ``defines`` are ``-D`` names.
    """
    path = Path(path)
    state = state or ReadState(server_root=path.resolve().parent)
    state.defines |= defines or set()
    result = LoadedConfig(main=str(path), state=state)
    reader = _Reader(result, os.environ if environ is None else environ, htaccess=False)
    if not path.is_file():
        result.errors.append(ParseError(str(path), 0, 0, "configuration file not found"))
        return result
    result.nodes = reader.read(path)
    return result


def load_htaccess(
    path: str | Path,
    state: ReadState | None = None,
    environ: Mapping[str, str] | None = None,
    display_name: str | None = None,
) -> LoadedConfig:
    """Load one ``.htaccess`` file: conditionals and ${VAR} as the server would, no Include."""
    state = state or ReadState()
    result = LoadedConfig(main=str(path), state=state)
    reader = _Reader(result, os.environ if environ is None else environ, htaccess=True)
    config = parse_file(path, display_name)
    result.files[config.path] = config
    result.warnings.extend(config.warnings)
    if not config.ok:
        result.errors.extend(config.errors)
        return result
    result.nodes = reader.walk(config.nodes)
    return result
