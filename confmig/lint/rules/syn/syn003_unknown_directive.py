"""SYN003: a directive Apache does not know, or whose module is not loaded."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, ANY_SECTION, Rule, register
from confmig.syntax import Directive, Section


def _module_label(module: str) -> str:
    return module if module.startswith("mod_") or module == "core" else f"mod_{module}"


@register
class UnknownDirective(Rule):
    code = "SYN003"
    name = "unknown-directive"
    summary = "A directive Apache does not know, or whose module is not loaded"
    rationale = (
        "Apache rejects a directive it has no module for with \"Invalid command 'X', perhaps "
        "misspelled or defined by a module not included in the server configuration\". That is "
        "the same error for a typo and for a real directive of a module that is not loaded: in "
        ".htaccess Apache answers 500 for every request under the directory, in a server "
        "config it refuses to start. Wrap optional directives in <IfModule>; fix typos."
    )
    bad = "RewriteEngin On\n"
    good = "RewriteEngine On\n"
    severity = Severity.error
    fix = "fix the name, load the module, or wrap the lines in <IfModule module>"

    directives = frozenset({ANY_DIRECTIVE, ANY_SECTION})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterable[Finding]:
        info = ctx.info(node)
        if info is not None and ctx.module_loaded(info):
            return ()  # known and loaded (the common case, without making a generator)
        return self._check(node, ctx)

    def _check(self, node: Directive | Section, ctx: FileContext) -> Iterator[Finding]:
        nonfatal = ctx.kind == "htaccess" and "Unknown" in ctx.overrides.nonfatal
        where = ("Apache answers 500 for every request under this directory"
                 if ctx.kind == "htaccess" else "Apache refuses to start")
        info = ctx.info(node)
        label = f"<{node.name}>" if isinstance(node, Section) else node.name
        if info is None:
            suggestion = _suggest(ctx, node.name)
            if not suggestion and ctx.not_modelled(label) is not None:
                return  # a loaded module confmig has no facts for may define it: SYN007
            hint = f"did you mean {suggestion}?" if suggestion else self.fix
            if nonfatal:
                yield self.finding(node, f"Unknown directive {label}: ignored "
                                         "(AllowOverride Nonfatal=Unknown)",
                                   hint=hint, severity=Severity.warning)
            else:
                yield self.finding(node, f"Invalid command '{label}', perhaps misspelled or "
                                         f"defined by a module not included in the server "
                                         f"configuration ({where})", hint=hint)
            return
        if ctx.module_loaded(info):
            return
        module = _module_label(info.module)
        hint = (f"load {module} or wrap it in <IfModule {module}.c>"
                if not getattr(info, "third_party", False)
                else f"{label} comes from the third-party {module}: wrap it in "
                     f"<IfModule {module}.c>")
        if ctx.assumed_defaults:
            yield self.finding(
                node, f"{label} needs {module}, which Debian does not load by default: "
                      f"where it is not loaded, {where}", hint=hint,
                severity=Severity.warning)
        elif nonfatal:
            yield self.finding(node, f"{label} needs {module} (not loaded): ignored "
                                     "(AllowOverride Nonfatal=Unknown)", hint=hint,
                               severity=Severity.warning)
        else:
            yield self.finding(node, f"{label} needs {module} (not loaded): Invalid "
                                     f"command ({where})", hint=hint)


def _suggest(ctx: FileContext, name: str) -> str | None:
    suggest = getattr(ctx.registry, "suggest", None)
    if suggest is None:
        return None
    found = suggest(name)
    if isinstance(found, list | tuple):
        found = found[0] if found else None
    return found or None
