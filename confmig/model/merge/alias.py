"""mod_alias's per-directory part: ``Redirect*``/``RedirectMatch`` (list and "Location" forms),
``RedirectRelative``, and ``merge_alias_dir_config``.  In server context the redirects go to the
builder's ``server_redirects`` (checked at translate time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from confmig.model.mapping import AliasEntry, RegexError, compile_config_regex, is_url
from confmig.model.merge.handlers import handles, on_off
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class AliasDir:
    """``alias_dir_conf``: the Redirect list, the Location-form Redirect, RedirectRelative."""

    redirects: tuple[AliasEntry, ...] = ()
    redirect: tuple[int, str | None, Directive] | None = None  # Location-form Redirect
    allow_relative: bool | None = None


def merge_alias(base: AliasDir, new: AliasDir) -> AliasDir:
    """``merge_alias_dir_config``: the child's redirects are tried before the parent's."""
    return AliasDir(new.redirects + base.redirects, new.redirect or base.redirect,
                    new.allow_relative if new.allow_relative is not None
                    else base.allow_relative)


# -- directives --------------------------------------------------------------------------

_REDIRECT_STATUS = {"permanent": 301, "temp": 302, "seeother": 303, "gone": 410}


def parse_redirect(d: Directive, *, in_dir: bool) -> tuple[AliasEntry | None,
                                                            tuple[int, str | None] | None,
                                                            str | None]:
    """``add_redirect_internal`` → (list entry, Location-form (status, url), error).

    In a per-directory context a Redirect whose only argument after a status is a URL (or
    that has no status and a single argument) is the "Location form": it redirects every
    request of that context.
    """
    name = d.lname
    regex_form = name == "redirectmatch"
    status = 301 if name == "redirectpermanent" else 302
    low, high = {"redirect": (1, 3), "redirectmatch": (2, 3)}.get(name, (2, 2))
    if not low <= len(d.args) <= high:
        return None, None, f"{d.name} takes {low} to {high} arguments" if low != high else \
            f"{d.name} takes two arguments"
    arg1, arg2, arg3 = (*d.args, None, None)[:3]
    key = arg1.lower()
    if key in _REDIRECT_STATUS:
        status = _REDIRECT_STATUS[key]
        grok = -1 if key == "gone" else 1
    elif arg1[:1].isdigit():
        status = atoi(arg1)
        grok = 1 if 300 <= status < 400 else -1
    else:
        grok = 0
    if arg3 is not None and not grok:
        return None, None, "Redirect: invalid first argument (of three)"
    if in_dir:
        if (grok > 0 and arg2 is not None and arg3 is None) or (not grok and arg2 is None):
            return None, (status, arg2 if grok else arg1), None
        if grok < 0 and arg2 is None:
            return None, (status, None), None
    fake, url = arg2, arg3
    if arg3 is None and not grok:
        fake, url = arg1, arg2
    regex = None
    if regex_form:
        try:
            regex = compile_config_regex(fake or "")
        except RegexError:
            return None, None, "Regular expression could not be compiled."
    if 300 <= status < 400:
        if url is None:
            return None, None, "URL to redirect to is missing"
        if not regex_form and not is_url(url) and not url.startswith("/"):
            return None, None, "Redirect to non-URL"
    elif url is not None:
        return None, None, "Redirect URL not valid for this status"
    return AliasEntry("redirect", fake or "", url, regex, status, d), None, None


@handles("redirect", "redirectmatch", "redirectpermanent", "redirecttemp")
def _redirect(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    entry, location_form, err = parse_redirect(d, in_dir=b.context != "server")
    if err:
        return err
    if b.context == "server":
        if entry is not None:
            b.server_redirects.append(entry)
        return None
    b.touched.add("alias")
    if location_form is not None:
        b.alias["redirect"] = (location_form[0], location_form[1], d)
    elif entry is not None:
        # a list while the section is read (a tuple rebuilt a line was quadratic: a 1 MB file
        # of Redirect lines took 3.2 s to lint); the builder makes it AliasDir's tuple
        b.alias.setdefault("redirects", []).append(entry)
    return None


@handles("redirectrelative")
def _redirect_relative(b: SectionBuilder, d: Directive, _m: frozenset[str] | None
                       ) -> str | None:
    value = on_off(d)
    if value is None:
        return "RedirectRelative must be On or Off"
    b.touched.add("alias")
    b.alias["allow_relative"] = value
    return None

