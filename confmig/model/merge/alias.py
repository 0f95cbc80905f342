"""mod_alias's per-directory part: ``Redirect*``/``RedirectMatch`` (list and "Location" forms),
``RedirectRelative``, and ``merge_alias_dir_config``.  In server context the redirects go to the
builder's ``server_redirects`` (checked at translate time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from confmig.model.mapping import AliasEntry, RegexError, compile_config_regex, is_url
from confmig.model.merge.handlers import handles, on_off, takes
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class AliasDir:
    """``alias_dir_conf``: the Redirect list, the Location-form Redirect, RedirectRelative."""

    redirects: tuple[AliasEntry | RedirectLine, ...] = ()
    redirect: tuple[int, str | None, Directive] | None = None  # Location-form Redirect
    allow_relative: bool | None = None


def merge_alias(base: AliasDir, new: AliasDir) -> AliasDir:
    """``merge_alias_dir_config``: the child's redirects are tried before the parent's."""
    return AliasDir(new.redirects + base.redirects, new.redirect or base.redirect,
                    new.allow_relative if new.allow_relative is not None
                    else base.allow_relative)


class RedirectLine:
    """A ``Redirect``/``RedirectPermanent``/``RedirectTemp`` list entry that reads its path
    (``fake``) and target (``real``) from its directive's words, the first two
    (:class:`_RedirectLine0`: no status word) or the two after the status word: the
    :class:`~confmig.model.mapping.AliasEntry` fields ``try_alias_list``, the plan and the
    explanation read, checked when it is made (:func:`parse_redirect`).  An entry with its
    own strings and status was 88 bytes, its two strings ~100 and its status 32 a line of a
    1 MB file of ``Redirect 301 /aN /bN`` (5.4 MB of its 16.4 MB lint, issue 10); this one
    is 48.  Not a regex (RedirectMatch) nor a status without target: those are AliasEntry."""

    __slots__ = ("directive", "status")
    kind = "redirect"
    regex = None
    handler = None
    _at = 1  # where the path is in the words

    def __init__(self, directive: Directive, status: int) -> None:
        self.directive = directive
        self.status = status

    @property
    def fake(self) -> str:
        return self.directive.arg(self._at)

    @property
    def real(self) -> str:
        return self.directive.arg(self._at + 1)

    def __repr__(self) -> str:
        return (f"RedirectLine(fake={self.fake!r}, real={self.real!r}, "
                f"status={self.status}, directive={self.directive!r})")


class _RedirectLine0(RedirectLine):
    """A :class:`RedirectLine` without status word (``Redirect /a /b``)."""

    __slots__ = ()
    _at = 0


# -- directives --------------------------------------------------------------------------

_REDIRECT_STATUS = {"permanent": 301, "temp": 302, "seeother": 303, "gone": 410}
_ARITY = {"redirect": (1, 3), "redirectmatch": (2, 3)}  # (else 2)
# one int object per status (each line's atoi made one, 32 bytes, issue 10)
_STATUSES = {code: code for code in range(100, 1000)}


def parse_redirect(d: Directive, *, in_dir: bool) -> tuple[AliasEntry | RedirectLine | None,
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
    low, high = _ARITY.get(name, (2, 2))
    words = d.args
    count = len(words)
    if not low <= count <= high or "" in words:
        # config.c's TAKE123/TAKE23/TAKE2: an empty word where one is required is missing
        # (``Redirect "" url`` is 500); its rule and message are handlers.takes'
        problem = takes(d)
        if problem is not None or not low <= count <= high:
            return None, None, problem or (
                f"{d.name} takes {low} to {high} arguments" if low != high
                else f"{d.name} takes two arguments")
    arg1 = words[0]
    arg2 = words[1] if count > 1 else None
    arg3 = words[2] if count > 2 else None
    key = arg1.lower()
    if key in _REDIRECT_STATUS:
        status = _REDIRECT_STATUS[key]
        grok = -1 if key == "gone" else 1
    elif arg1[:1].isdigit():
        status = atoi(arg1)
        status = _STATUSES.get(status, status)
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
    fake, url, at = arg2, arg3, 1  # (at: where fake is in the words)
    if arg3 is None and not grok:
        fake, url, at = arg1, arg2, 0
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
    # (its words are fake and url, after a status word when at is 1: three words)
    if regex is None and fake and url is not None and d.arg(at) == fake \
            and d.arg(at + 1) == url:
        return (_RedirectLine0 if at == 0 else RedirectLine)(d, status), None, None
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

