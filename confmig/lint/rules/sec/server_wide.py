"""Helpers for server-wide settings whose default is the insecure value."""

from __future__ import annotations

from confmig.load import LoadedConfig
from confmig.syntax import Directive, Node, Section


def top_directives(nodes: list[Node], lname: str) -> list[Directive]:
    """Directives named ``lname`` outside any section (the main server's settings)."""
    return [n for n in nodes if isinstance(n, Directive) and n.lname == lname]


def full_config(server: LoadedConfig) -> bool:
    """A complete server config (Listen and LoadModule/ServerRoot), not a snippet such as
    a vhost file — only then does a missing directive mean Apache's default is in force."""
    found: set[str] = set()

    def walk(nodes: list[Node]) -> None:
        for n in nodes:
            if isinstance(n, Directive):
                found.add(n.lname)
            elif isinstance(n, Section) and n.lname != "virtualhost":
                walk(n.children)

    walk(server.nodes)
    return "listen" in found and bool(found & {"loadmodule", "serverroot"})


def first_directive(server: LoadedConfig) -> Directive | None:
    """Where to report something the main config lacks: its first directive."""
    config = server.files.get(server.main)
    nodes = config.nodes if config is not None else server.nodes
    return next((n for n in nodes if isinstance(n, Directive)), None)
