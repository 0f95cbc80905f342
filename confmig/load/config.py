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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from confmig.load.conditions import (
    CONDITIONAL_SECTIONS,
    ConditionError,
    ReadState,
    evaluate,
)
from confmig.load.includes import IncludeError, expand_include
from confmig.load.variables import ExpansionTooLong, resolve_vars, server_environ
from confmig.syntax import (
    ConfigFile,
    Directive,
    Node,
    ParseError,
    ReadLimitError,
    Section,
    parse_bytes,
    parse_file,
)
from confmig.syntax.parser import (
    MAX_SECTION_DEPTH,
    depth_error,
    logical_text,
    regular_file_error,
)
from confmig.syntax.words import first_word, split_words

MAX_INCLUDE_DEPTH = 128
# confmig's bound on all ${VAR} substitution in one configuration (each line is bounded by
# variables.MAX_EXPANDED_LINE): memory stays bounded whatever Define chain the input builds.
MAX_EXPANDED_TOTAL = 64 * 1024 * 1024
DirectiveOrSection = TypeVar("DirectiveOrSection", Directive, Section)


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


class _IncludeTarget:
    """A file an Include reads, in the frame that splices its nodes in."""

    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path


class _Frame:
    """One level of the loader's explicit stack: the nodes still to read and the list that
    receives them; ``file`` is set when the frame is a whole file (popped from the Include
    chain when done), ``depth`` is the nesting of the sections that receive the nodes;
    ``variables`` is False when the nodes' file has no ``${`` (nothing to substitute)."""

    __slots__ = ("depth", "file", "items", "original", "out", "parent", "slot", "variables")

    def __init__(self, items: Iterator[Node | _IncludeTarget], out: list[Node], depth: int,
                 file: str | None = None, variables: bool = True) -> None:
        self.items = items
        self.out = out
        self.depth = depth
        self.file = file
        self.variables = variables
        # For a section's body: the section as parsed, and where it sits in the parent's
        # list — a copy with the body as read replaces it there when reading changed it.
        self.original: Section | None = None
        self.parent: list[Node] | None = None
        self.slot = 0


class _Reader:
    """Reads nodes in file order with an explicit stack (no recursion: neither Include
    chains nor nested sections can reach Python's recursion limit)."""

    def __init__(self, result: LoadedConfig, environ: Mapping[str, str], htaccess: bool) -> None:
        self.result = result
        self.state = result.state
        self.environ = environ
        self.htaccess = htaccess
        self.stack: list[str] = []  # real paths of the files being read (Include chain)
        self.frames: list[_Frame] = []
        self.expanded = 0  # characters produced by ${VAR} substitution so far

    def _error(self, node: Node, message: str) -> None:
        self.result.errors.append(ParseError(node.file, node.line, node.column, message))

    def read(self, path: Path) -> list[Node]:
        out: list[Node] = []
        self._push_file(path, out, 0)
        self._run()
        return out

    def walk(self, config: ConfigFile) -> list[Node]:
        """The nodes of one ``.htaccess`` file as read (no Include there)."""
        if not config.variables and not config.conditional:
            # Reading changes nothing (no ${VAR}, no conditional section, and the parser
            # kept sections to the same depth): the parsed nodes themselves, not a copy of
            # the list (8 bytes a node).
            return config.nodes
        out: list[Node] = []
        self.frames.append(_Frame(iter(config.nodes), out, 0, variables=config.variables))
        self._run()
        return out

    def _push_file(self, path: Path, out: list[Node], depth: int) -> None:
        key = str(path)
        config = parse_file(path, htaccess=self.htaccess)
        self.result.files.setdefault(key, config)
        self.result.warnings.extend(config.warnings)
        if not config.ok:
            self.result.errors.extend(config.errors)
            return
        real = os.path.realpath(path)
        self.stack.append(real)
        self.frames.append(_Frame(iter(config.nodes), out, depth, real, config.variables))

    def _run(self) -> None:
        frames = self.frames
        while frames:
            frame = frames[-1]
            node = next(frame.items, None)
            if node is None:
                frames.pop()
                if frame.file is not None:
                    self.stack.pop()
                elif frame.original is not None and frame.parent is not None:
                    self._replace_if_changed(frame, frame.original, frame.parent)
                continue
            if isinstance(node, _IncludeTarget):
                self._push_file(node.path, frame.out, frame.depth)
            elif isinstance(node, Directive):
                self._directive(self._substitute(node) if frame.variables else node, frame)
            elif isinstance(node, Section):
                self._section(self._substitute(node) if frame.variables else node, frame)
            else:
                frame.out.append(node)

    def _substitute(self, node: DirectiveOrSection) -> DirectiveOrSection:
        """Apply ``${VAR}`` to the whole logical line, then split it again."""
        if "${" not in node.raw:
            return node
        text = logical_text(node.raw)
        try:
            resolved, missing = resolve_vars(text, self.state.variables, self.environ)
        except ExpansionTooLong as exc:
            raise ReadLimitError(ParseError(
                node.file, node.line, node.column,
                f"{exc}: confmig stops there (Apache has no limit and runs out of memory)"
            )) from None
        for name in missing:
            self.result.warnings.append(ParseError(
                node.file, node.line, node.column, f"Config variable ${{{name}}} is not defined"))
        if resolved == text:
            return node
        self.expanded += len(resolved)
        if self.expanded > MAX_EXPANDED_TOTAL:
            raise ReadLimitError(ParseError(
                node.file, node.line, node.column,
                f"${{VAR}} substitution has produced more than {MAX_EXPANDED_TOTAL:,} "
                f"characters in this configuration: confmig stops there"))
        name, rest = first_word(resolved)
        if isinstance(node, Section):
            rest = rest[: rest.rfind(">")] if ">" in rest else rest
            name = name.rstrip(">")[1:]
        return dataclasses.replace(node, name=name, args=split_words(rest),
                                   args_text=rest.strip(" \t\n\r\f\v"))

    def _directive(self, node: Directive, frame: _Frame) -> None:
        lname = node.lname
        if self.htaccess:
            frame.out.append(node)
            return
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
            self._include(node, frame, optional=lname == "includeoptional")
            return
        frame.out.append(node)

    def _include(self, node: Directive, frame: _Frame, optional: bool) -> None:
        if len(node.args) != 1:
            self._error(node, f"{node.name} takes one argument")
            return
        try:
            targets = expand_include(node.args[0], self.state.server_root, optional)
        except IncludeError as exc:
            self._error(node, f"{node.name}: {exc}")
            return
        self.result.includes.append(IncludeEdge(node.file, node.line, [str(t) for t in targets]))
        readable: list[Path] = []
        for target in targets:
            real = os.path.realpath(target)
            refused = regular_file_error(target)
            if refused is not None:
                # ap_pcfg_openfile refuses it (IncludeOptional too) and Apache stops there.
                self._error(node, refused)
                break
            if real in self.stack:
                chain = " -> ".join([*self.stack[self.stack.index(real):], real])
                self._error(node, f"Include cycle: {chain}")
                continue
            if len(self.stack) >= MAX_INCLUDE_DEPTH:
                self._error(node, f"Exceeded the maximum Include nesting level of "
                                  f"{MAX_INCLUDE_DEPTH}")
                continue
            readable.append(target)
        if readable:
            targets_frame = _Frame(iter([_IncludeTarget(t) for t in readable]), frame.out,
                                   frame.depth)
            self.frames.append(targets_frame)

    def _section(self, node: Section, frame: _Frame) -> None:
        if node.lname in CONDITIONAL_SECTIONS:
            try:
                active = evaluate(node.lname, node.args_text, node.args, self.state)
            except ConditionError as exc:
                self._error(node, str(exc))
                return
            if not active:
                if not node.closed:  # ap_soak_end_container hits the end of the file
                    self._error(node, f"Expected </{node.name}> before end of configuration")
                self.result.skipped_sections.append(node)
                return
            if node.close_error:  # ap_build_cont_config wants the exact closing line
                self.result.errors.append(ParseError(node.file, node.close_line, 1,
                                                     node.close_error))
                return
            self.frames.append(_Frame(iter(node.children), frame.out, frame.depth,
                                      variables=frame.variables))
            return
        if frame.depth >= MAX_SECTION_DEPTH:
            raise ReadLimitError(depth_error(node.file, node.line, node.column))
        body = _Frame(iter(node.children), [], frame.depth + 1, variables=frame.variables)
        body.original, body.parent, body.slot = node, frame.out, len(frame.out)
        frame.out.append(node)
        self.frames.append(body)

    @staticmethod
    def _replace_if_changed(frame: _Frame, original: Section, parent: list[Node]) -> None:
        """Keep the parsed section itself when reading changed nothing in its body (no
        conditional unwrapped, no Include spliced in, no ${VAR}): one copy of a large tree,
        and no copy made of each section only to be dropped; else a copy with the body as
        read."""
        read, parsed = frame.out, original.children
        if len(read) != len(parsed) or any(a is not b for a, b in zip(read, parsed, strict=True)):
            parent[frame.slot] = dataclasses.replace(original, children=read)


def load_config(
    path: str | Path,
    *,
    defines: set[str] | None = None,
    state: ReadState | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadedConfig:
    """Load a server configuration file and everything it includes.

    ServerRoot (for relative Include paths) is the directory of ``path`` until a
    ``ServerRoot`` directive says otherwise.  ``defines`` are ``-D`` names.  ``${NAME}`` is
    read from *environ*, else the state's, else the environment Apache would start with
    (:func:`~confmig.load.variables.server_environ`: Debian's ``envvars`` applied); the
    state keeps it for the ``.htaccess`` files read under this configuration.
    """
    path = Path(path)
    state = state or ReadState(server_root=path.resolve().parent)
    state.defines |= defines or set()
    if environ is None:
        environ = state.environ if state.environ is not None else server_environ(path)
    state.environ = environ
    result = LoadedConfig(main=str(path), state=state)
    reader = _Reader(result, environ, htaccess=False)
    if not path.is_file():
        refused = regular_file_error(path)
        result.errors.append(ParseError(str(path), 0, 0, refused or "configuration file not found"))
        return result
    result.nodes = reader.read(path)
    return result


def load_htaccess(
    path: str | Path,
    state: ReadState | None = None,
    environ: Mapping[str, str] | None = None,
    display_name: str | None = None,
    data: bytes | None = None,
) -> LoadedConfig:
    """Load one ``.htaccess`` file: conditionals and ${VAR} as the server would, no Include.
    ``data``: its content, when the caller has read it already (it checked the file is one
    Apache opens, :func:`confmig.load.accessfile.check_access_file`)."""
    state = state or ReadState()
    result = LoadedConfig(main=str(path), state=state)
    if environ is None:
        environ = state.environ if state.environ is not None else os.environ
    reader = _Reader(result, environ, htaccess=True)
    if data is None:
        config = parse_file(path, display_name, htaccess=True)
    else:
        config = parse_bytes(data, display_name or str(path), htaccess=True)
    result.files[config.path] = config
    result.warnings.extend(config.warnings)
    if not config.ok:
        result.errors.extend(config.errors)
        return result
    result.nodes = reader.walk(config)
    return result
