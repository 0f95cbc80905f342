"""The per-directory configuration of HTTP Basic logins: ``mod_auth_basic`` (which providers
check the password), ``mod_authn_file`` (``AuthUserFile``) and ``mod_authz_groupfile``
(``AuthGroupFile``).

``mod_authn_file`` and ``mod_authz_groupfile`` have no merger ("default is to override"):
a section that names a file replaces the parent's, a section that does not keeps it — which
:func:`confmig.model.merge.vector.merge_configs` does for a module without a merger.
``mod_auth_basic`` merges field by field (``merge_auth_basic_dir_config``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from confmig.model.merge.handlers import handles, on_off, takes
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

# Providers mod_auth_basic can ask; confmig checks passwords only for "file".
KNOWN_PROVIDERS = {"file": "mod_authn_file", "dbm": "mod_authn_dbm",
                   "dbd": "mod_authn_dbd", "ldap": "mod_authnz_ldap",
                   "socache": "mod_authn_socache", "anon": "mod_authn_anon"}


@dataclass(frozen=True, slots=True)
class AuthBasicDir:
    """``auth_basic_config_rec``: AuthBasicProvider, AuthBasicAuthoritative,
    AuthBasicUseDigestAlgorithm, AuthBasicFake (None: not set here)."""

    providers: tuple[str, ...] | None = None
    authoritative: bool | None = None
    digest_algorithm: str | None = None
    fake: bool | None = None


def merge_auth_basic(base: AuthBasicDir, new: AuthBasicDir) -> AuthBasicDir:
    def pick(a: object, b: object) -> object:
        return b if b is not None else a
    return AuthBasicDir(
        providers=new.providers if new.providers is not None else base.providers,
        authoritative=pick(base.authoritative, new.authoritative),  # type: ignore[arg-type]
        digest_algorithm=pick(base.digest_algorithm,  # type: ignore[arg-type]
                              new.digest_algorithm),
        fake=pick(base.fake, new.fake))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class AuthnFileDir:
    """``authn_file_config_rec``: the password file, as written (relative to ServerRoot);
    None: a section that has the module's config but sets no file."""

    user_file: str | None = None


@dataclass(frozen=True, slots=True)
class GroupFileDir:
    """``authz_groupfile_config_rec``: the group file, as written (relative to ServerRoot);
    None: a section that has the module's config but sets no file."""

    group_file: str | None = None


@handles("authuserfile")
def _auth_user_file(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    b.module_configs["authn_file"] = AuthnFileDir(d.args[0])
    return None


@handles("authgroupfile")
def _auth_group_file(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    b.module_configs["authz_groupfile"] = GroupFileDir(d.args[0])
    return None


def _basic(b: SectionBuilder) -> dict[str, object]:
    return b.module_fields.setdefault("auth_basic", {})


@handles("authbasicprovider")
def _auth_basic_provider(b: SectionBuilder, d: Directive,
                         _m: frozenset[str] | None) -> str | None:
    if not d.args:
        return "AuthBasicProvider requires at least one argument"
    for name in d.args:
        # add_authn_provider: ap_lookup_provider's names are case-sensitive ("FILE": 500)
        module = KNOWN_PROVIDERS.get(name)
        if module is None or not b.has_module(module):
            return (f"Unknown Authn provider: {name}")
    # add_authn_provider appends to the section's list: a second line adds its providers
    # after the first line's, it does not replace them
    basic = _basic(b)
    basic["providers"] = basic.get("providers", ()) + tuple(d.args)  # type: ignore[operator]
    return None


@handles("authbasicauthoritative")
def _auth_basic_authoritative(b: SectionBuilder, d: Directive,
                              _m: frozenset[str] | None) -> str | None:
    value = on_off(d)
    if value is None:
        return f"{d.name} must be On or Off"
    _basic(b)["authoritative"] = value
    return None


@handles("authbasicusedigestalgorithm")
def _auth_basic_digest(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    err = takes(d)
    if err:
        return err
    if d.args[0].lower() not in ("md5", "off"):
        return "Invalid algorithm in AuthBasicUseDigestAlgorithm"
    _basic(b)["digest_algorithm"] = None if d.args[0].lower() == "off" else "MD5"
    return None


@handles("authbasicfake")
def _auth_basic_fake(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    if (problem := takes(d)) is not None:
        return problem
    off = d.args[0].lower() == "off"  # add_basic_fake: "off" whatever the password
    if not off:
        # the user and the password (default "password") are string expressions
        user, password = d.args[0], d.args[1] if len(d.args) > 1 else "password"
        problem = (_fake_expression_problem(user, b.restricted)
                   or _fake_expression_problem(password, b.restricted))
        if problem is not None:
            which = ("username expression" if problem[0] == user
                     else f"password expression associated to user '{user}'")
            return f"Could not parse fake {which} '{problem[0]}': {problem[1]}"
    _basic(b)["fake"] = not off
    return None


def _fake_expression_problem(text: str, restricted: bool) -> tuple[str, str] | None:
    """``ap_expr_parse_cmd(..., AP_EXPR_FLAG_STRING_RESULT)``'s refusal of *text*: (text,
    message), or None.  A text without ``%``, ``$`` nor backslash is a plain string (no parse,
    Lark stays unloaded)."""
    if not any(c in text for c in "%$\\"):
        return None
    from confmig.model.expr import ExprError, parse_string_cached

    try:
        parse_string_cached(text, restricted=restricted)
    except ExprError as exc:
        return text, str(exc)
    return None
