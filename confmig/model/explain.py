"""``confmig explain``: evaluate one request and show why Apache answers what it answers.

:func:`explain_request` turns command-line input into a request and evaluates it;
:func:`render_text` prints the answer for people (phases, each directive with file:line, the
rewrite engine's steps), :func:`render_json` for programs.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import ipaddress
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from confmig.load import Workspace, load_path
from confmig.model.evaluate import Answer, Step, evaluate
from confmig.model.request import Request, RequestError, parse_header_option

REASONS = {
    200: "OK", 301: "Moved Permanently", 302: "Found", 303: "See Other",
    307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
    401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
    410: "Gone", 414: "URI Too Long", 500: "Internal Server Error", 502: "Bad Gateway",
}
PHASE_STYLE = {
    "request": "bold", "uri": "cyan", "translate": "blue", "walk": "magenta",
    "env": "yellow", "access": "red", "fixups": "green", "handler": "bold green",
    "redirect": "bold yellow", "error": "bold red",
}


class ExplainError(ValueError):
    """Input that cannot be explained (bad URL, header, missing path)."""


def explain_request(url: str, *, root: Path | None = None, config: Path | None = None,
                    host: str | None = None, headers: Sequence[str] = (),
                    method: str = "GET", defines: Iterable[str] = (),
                    user: str | None = None, remote_addr: str | None = None,
                    dns: bool = True, follow_symlinks: bool = False,
                    at: str | None = None) -> Answer:
    """Load the docroot and/or server config and evaluate ``method url`` with *headers*
    (``Name: value`` strings, as curl's ``-H`` takes them); *user* (``NAME:PASSWORD``, as
    curl's ``--user``) sends Basic credentials, *remote_addr* is the client's address, and
    *dns* False keeps host-name access control from asking the resolver (the answer then
    says so), and *at* (ISO 8601, e.g. ``2026-01-01T10:00:00``, local time unless it names a
    zone) is the time of the request for ``%{TIME_*}`` (default: now)."""
    check_paths(root, config)
    try:
        pairs = [parse_header_option(h) for h in headers]
        if user is not None:
            pairs.append(basic_authorization(user))
        request = Request.from_url(url, method=method, headers=pairs, host=host)
    except RequestError as exc:
        raise ExplainError(str(exc)) from exc
    if remote_addr is not None:
        try:
            remote_addr = str(ipaddress.ip_address(remote_addr))
        except ValueError as exc:
            raise ExplainError(f"--remote-addr {remote_addr!r} is not an IP address") from exc
        request = dataclasses.replace(request, remote_addr=remote_addr)
    if not dns:
        request = dataclasses.replace(request, dns_lookups=False)
    if at is not None:
        request = dataclasses.replace(request, clock=request_time(at))
    workspace = load_workspace(root, config, defines, follow_symlinks)
    answer = evaluate(workspace, request)
    note_not_modelled(answer, workspace)
    return answer


def check_paths(root: Path | None, config: Path | None) -> None:
    """The docroot and server config named for an explanation exist (else ExplainError)."""
    if root is None and config is None:
        raise ExplainError("give --root DOCROOT or --config httpd.conf")
    if root is not None and not root.is_dir():
        raise ExplainError(f"{root}: not a directory")
    if config is not None and not config.is_file():
        raise ExplainError(f"{config}: no such file")


def load_workspace(root: Path | None, config: Path | None, defines: Iterable[str] = (),
                   follow_symlinks: bool = False) -> Workspace:
    """The configuration requests are explained against; a server config that does not load
    is an ExplainError (Apache would not start)."""
    check_paths(root, config)
    workspace = load_path(root, config, set(defines), follow_symlinks=follow_symlinks)
    if workspace.server is not None and not workspace.server.ok:
        first = workspace.server.errors[0]
        raise ExplainError(f"the server config does not load: {first}")
    return workspace


def request_time(text: str) -> float:
    """``--time``: an ISO 8601 date and time as seconds since the epoch."""
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError as exc:
        raise ExplainError(f"--time {text!r}: expected a date and time such as "
                           "2026-01-01T10:00:00") from exc
    return when.timestamp()


def basic_authorization(user: str) -> tuple[str, str]:
    """``--user NAME:PASSWORD`` → the ``Authorization: Basic …`` header curl would send."""
    if ":" not in user:
        raise RequestError("--user takes NAME:PASSWORD")
    token = base64.b64encode(user.encode("utf-8", errors="surrogateescape")).decode("ascii")
    return "Authorization", f"Basic {token}"


# -- JSON --------------------------------------------------------------------------------

def render_json(answer: Answer) -> dict[str, Any]:
    """The answer as one JSON object: ``status``, ``location``, ``file``, ``headers``,
    ``steps``, ``applied`` and more (``server``, ``handler``, ``unsupported``…)."""
    return answer.as_json()


# -- text --------------------------------------------------------------------------------

def render_text(answer: Answer, request_line: str = "") -> Group:
    """A rich renderable: the answer, the headers, the steps by phase, the directives in merge
    order, and what the model could not evaluate."""
    parts: list[Any] = [_summary(answer, request_line)]
    if answer.headers:
        parts.append(_title("Response headers set by the configuration"))
        table = Table.grid(padding=(0, 1))
        for name, value in answer.headers.items():
            table.add_row(Text(f"  {safe(name)}:", style="bold"), Text(safe(value)))
        parts.append(table)
    parts.append(_title("How Apache gets there"))
    parts.append(_steps(answer.steps))
    if answer.applied:
        parts.append(_title("Directives in effect, in merge order"))
        parts.append(_applied(answer))
    if answer.limits:
        parts.append(_title("Apache's limits reached (the answer is Apache's at that limit)"))
        for item in answer.limits:
            parts.append(Text(f"  - {safe(item)}", style="yellow"))
    if answer.unsupported:
        parts.append(_title("Not modelled exactly (the answer may differ)"))
        for item in answer.unsupported:
            parts.append(Text(f"  - {safe(item)}", style="yellow"))
    return Group(*parts)


_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def safe(text: str, keep: int = 0) -> str:
    """*text* as it can be printed: control characters (C0, DEL, C1) and the bytes that are
    not UTF-8 (lone surrogates) as ``\\xNN`` escapes, so a hostile URL, header or config
    cannot write to the terminal; with *keep*, cut to about that many characters."""
    if keep and len(text) > keep:
        text = f"{text[:keep - 40]}…[{len(text)} characters]…{text[-20:]}"
    return _UNSAFE.sub(_escaped, text) if _UNSAFE.search(text) else text


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the byte itself
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _title(text: str) -> Text:
    return Text(f"\n{text}", style="bold underline")


def _summary(answer: Answer, request_line: str) -> Table:
    grid = Table.grid(padding=(0, 1))
    reason = REASONS.get(answer.status, "")
    style = "green" if answer.status < 300 else "yellow" if answer.status < 400 else "red"
    head = Text()
    if request_line:
        head.append(f"{safe(request_line, 300)} → ", style="bold")
    head.append(f"{answer.status} {reason}".strip(), style=f"bold {style}")
    grid.add_row(head)
    rows = [("server", answer.server), ("DocumentRoot", answer.document_root)]
    if answer.location:
        rows.append(("Location", answer.location))
    if answer.file:
        rows.append(("file", f"{answer.file}  ({answer.filename})"))
    elif answer.listing:
        rows.append(("file", "(directory listing by mod_autoindex)"))
    if answer.body:
        rows.append(("body", answer.body))
    for key, value in rows:
        grid.add_row(Text(f"  {key}: ", style="bold").append(safe(value), style=""))
    return grid


def _steps(steps: Sequence[Step]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    for step in steps:
        where = f"  [dim]({escape(safe(step.file))}:{step.line})[/]" if step.file else ""
        cell = Text.from_markup(escape(safe(step.message)) + where)
        for line in step.detail:
            cell.append("\n" + safe(line), style=_detail_style(line))
        table.add_row(Text(f"  {step.phase}", style=PHASE_STYLE.get(step.phase, "")), cell)
    return table


def _detail_style(line: str) -> str:
    text = line.strip()
    if text.startswith("rule "):
        return "bold" if "=> matched" in text else "dim"
    if text.startswith("cond "):
        return "cyan" if "=> matched" in text else "dim cyan"
    if text.startswith(("rewrite ", "=>")):
        return "green"
    return ""


def _applied(answer: Answer) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column()
    table.add_column(style="dim", no_wrap=True)
    section = None
    for item in answer.applied:
        if item.section != section:
            section = item.section
            table.add_row(Text(f"  {section}", style="magenta"), "")
        args = safe(" ".join(_quote(a) for a in item.args))
        table.add_row(Text(f"    {item.directive} {args}".rstrip()),
                      f"{_short(item.file)}:{item.line}")
    return table


def _quote(word: str) -> str:
    return f'"{word}"' if not word or any(ch in word for ch in " \t") else word


def _short(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


# -- directives confmig does not model ---------------------------------------------------

_INVALID = "Invalid command '"


def note_not_modelled(answer: Answer, workspace: Workspace) -> None:
    """Add to ``answer.unsupported`` the directives in effect that are known to exist but not
    modelled (a loaded third-party module's, or perhaps a loaded unknown module's), and an
    "Invalid command" 500 that such a module may define away
    (:meth:`~confmig.apache.modules.ModuleSet.not_modelled` decides)."""
    from confmig.model.target import site_for

    modules = site_for(workspace).state.modules
    notes = []
    for item in answer.applied:
        reason = modules.not_modelled(item.directive)
        if reason is not None:
            notes.append(f"{reason} ({item.file}:{item.line})")
    for step in answer.steps:
        start = step.message.find(_INVALID)
        if start >= 0:
            name = step.message[start + len(_INVALID):].split("'", 1)[0]
            reason = modules.not_modelled(name)
            if reason is not None:
                notes.append(f"{reason}; if it does, Apache does not answer 500 here")
    answer.unsupported.extend(n for n in dict.fromkeys(notes) if n not in answer.unsupported)
