"""mod_expires' per-directory configuration: ExpiresActive, ExpiresDefault, ExpiresByType
(codes such as ``A3600`` from ``access plus 1 hour``), and their merge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from confmig.model.merge.handlers import handles, on_off, takes
from confmig.model.rewrite.uri import atoi
from confmig.syntax import Directive
from confmig.syntax.words import split_words

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


@dataclass(frozen=True, slots=True)
class ExpiresDir:
    """``expires_dir_config``: codes such as ``A3600`` per lower-cased type."""

    active: bool | None = None
    default: str | None = None  # "A3600" / "M60"
    by_type: Mapping[str, str] = field(default_factory=dict)  # lower-cased type → code
    wildcards: bool = False


def merge_expires(base: ExpiresDir, add: ExpiresDir) -> ExpiresDir:
    return ExpiresDir(
        add.active if add.active is not None else base.active,
        add.default if add.default is not None else base.default,
        {**base.by_type, **add.by_type}, add.wildcards,
    )


def expires_code(text: str) -> tuple[str | None, str | None]:
    """``check_code``: ``access plus 1 month`` → ``A2592000`` (code, error)."""
    if text[:1] in ("A", "M"):
        return text, None
    words = split_words(text)
    if not words:
        return None, "bad expires code, unrecognised <base> ''"
    base_word = words.pop(0).lower()
    if base_word[:1] in ("n", "a"):
        base = "A"
    elif base_word[:1] == "m":
        base = "M"
    else:
        return None, f"bad expires code, unrecognised <base> '{base_word}'"
    if words and words[0][:1].lower() == "p":
        words.pop(0)
    total = 0
    while words:
        num = words.pop(0)
        if not num[:1].isdigit():
            return None, f"bad expires code, numeric value expected <num> '{num}'"
        if not words:
            return None, "bad expires code, missing <type>"
        unit = words.pop(0).lower()
        factor = _expires_factor(unit)
        if factor is None:
            return None, f"bad expires code, unrecognised <type>'{unit}'"
        total += factor * atoi(num)
    return f"{base}{total}", None


def _expires_factor(unit: str) -> int | None:
    day = 60 * 60 * 24
    if unit[:1] == "y":
        return day * 365
    if unit[:2] == "mo":
        return day * 30
    if unit[:1] == "w":
        return day * 7
    if unit[:1] == "d":
        return day
    if unit[:1] == "h":
        return 3600
    if unit[:2] == "mi":
        return 60
    if unit[:1] == "s":
        return 1
    return None


# -- directives --------------------------------------------------------------------------


@handles("expiresactive")
def _expires_active(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    value = on_off(d)
    if value is None:
        return "ExpiresActive must be On or Off"
    b.touched.add("expires")
    b.expires["active"] = value
    return None


@handles("expiresdefault")
def _expires_default(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    code, message = expires_code(d.args[0])
    if message:
        return f"'ExpiresDefault {d.args[0]}': {message}"
    b.touched.add("expires")
    b.expires["default"] = code
    return None


@handles("expiresbytype")
def _expires_by_type(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    mime, text = d.args
    slash = mime.rfind("/")
    if slash < 0:
        return "Invalid mimetype: should contain a slash"
    code, message = expires_code(text)
    if message:
        return f"'ExpiresByType {mime} {text}': {message}"
    b.touched.add("expires")
    # one dict while the section is read, handed to ExpiresDir (a copy a line was quadratic)
    b.expires.setdefault("by_type", {})[mime.lower()] = code
    if mime[slash + 1:] == "*":
        b.expires["wildcards"] = True
    return None

