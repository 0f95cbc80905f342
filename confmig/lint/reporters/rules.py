"""``confmig rules`` (every rule, text or JSON) and ``confmig rule CODE`` (one rule's docs)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from confmig.lint.rule import Rule, all_rules


class UnknownRule(LookupError):
    pass


def rule_json(rule: type[Rule]) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.value,
        "summary": rule.summary,
        "rationale": rule.rationale,
        "bad": rule.bad,
        "good": rule.good,
        "fix": rule.fix,
        "example_kind": rule.example_kind,
    }


def rules_json() -> str:
    return json.dumps([rule_json(r) for r in all_rules()], indent=2)


def print_rules(console: Console) -> None:
    table = Table(title="confmig lint rules", title_justify="left", expand=True)
    table.add_column("Code", no_wrap=True)
    table.add_column("Name", ratio=2, overflow="fold")
    table.add_column("Severity", no_wrap=True)
    table.add_column("Summary", ratio=5)
    for rule in all_rules():
        table.add_row(rule.code, rule.name, rule.severity.value, escape(rule.summary))
    console.print(table)


def find_rule(code: str) -> type[Rule]:
    wanted = code.strip().upper()
    for rule in all_rules():
        if rule.code == wanted or rule.name == code.strip().lower():
            return rule
    raise UnknownRule(f"unknown rule {code!r} (see `confmig rules`)")


def print_rule(code: str, console: Console) -> None:
    """Raises :class:`UnknownRule` for a code that no rule has."""
    rule = find_rule(code)
    console.print(f"[bold]{rule.code}[/] {rule.name} [dim]({rule.severity.value}, "
                  f"{'server config' if rule.example_kind == 'server' else '.htaccess'} "
                  "example)[/]")
    console.print()
    console.print(f"[bold]{escape(rule.summary)}[/]")
    console.print()
    console.print(escape(rule.rationale))
    if rule.fix:
        console.print()
        console.print(f"[green]Fix:[/] {escape(rule.fix)}")
    for title, text in (("Bad", rule.bad), ("Good", rule.good)):
        console.print()
        console.print(f"[bold]{title}:[/]")
        console.print(Syntax(text.rstrip("\n"), "apacheconf", theme="ansi_dark",
                             background_color="default"))
