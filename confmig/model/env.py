"""The header_parser phase: mod_setenvif (``SetEnvIf``/``BrowserMatch`` against request
attributes, headers or earlier variables) and mod_env (``SetEnv``/``UnsetEnv``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from confmig.model.merge import EnvDir, SetEnvIfDir
from confmig.model.round import Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def header_parser(ev: Evaluation, rnd: Round) -> None:
    """mod_setenvif's ``SetEnvIf*``/``BrowserMatch*``, then mod_env's ``SetEnv``/``UnsetEnv``."""
    conf: SetEnvIfDir | None = rnd.config.get("setenvif")
    if conf is not None:
        headers = ev.request.headers
        # Headers.get without its lower() (the entries' keys are lower-cased already).
        items = getattr(headers, "_items", None)  # a Headers (not isinstance: an ABC, slow)
        for entry in conf.entries:
            # What the attribute names: a special request field, a header, or an
            # earlier-set variable (None: nothing to match).
            key = entry.key  # the attribute in lower case
            special = _SPECIAL.get(key)
            if special is not None:
                subject: str | None = special(ev, rnd)
            else:
                if items is not None:
                    item = items.get(key)
                    subject = item[1] if item is not None else None
                else:
                    subject = headers.get(entry.attribute)
                if subject is None:
                    subject = rnd.env.get(entry.attribute)
            if subject is None or entry.regex.search(subject) is None:
                continue
            for name, value in entry.assignments:
                if value is None:
                    rnd.env.pop(name, None)
                else:
                    rnd.env[name] = value
            if ev.trace:
                names = ", ".join(n if v is not None else "!" + n
                                  for n, v in entry.assignments)
                ev.step("env", f"{entry.directive.name} matched: {names}",
                        entry.directive)
    env: EnvDir | None = rnd.config.get("env")
    if env is not None:
        for name in env.unset:
            rnd.env.pop(name, None)
        rnd.env.update(env.set)


# SetEnvIf's special attributes (HostnameLookups Off: Remote_Host is the address).
_SPECIAL: dict[str, Callable[[Evaluation, Round], str]] = {
    "remote_addr": lambda ev, rnd: ev.request.remote_addr,
    "remote_host": lambda ev, rnd: ev.request.remote_addr,
    "server_addr": lambda ev, rnd: ev.request.local_addr,
    "request_method": lambda ev, rnd: ev.request.method,
    "request_protocol": lambda ev, rnd: ev.request.protocol,
    "request_uri": lambda ev, rnd: rnd.uri,
}
