"""A scope's per-directory mod_rewrite ruleset (from the site plan) as nginx directives.

Idiomatic where a pattern allows it, exact everywhere else, never looser:

* the front controller (``!-f`` + ``!-d`` + one catch-all rule, optionally after
  ``^literal$ - [L]`` rules) becomes ``try_files $uri $uri/ TARGET$is_args$args`` — nginx
  answers a directory without its slash with a 301 and one without an index with 403, as
  Apache's mod_dir does once the rules let directories through;
* a rule without conditions becomes one ``rewrite`` (``last`` for ``[L]``, ``permanent`` or
  ``redirect`` for ``[R=301|302]``) or an ``if`` with ``return``/``break``;
* conditions become ``if`` lines that each set a flag (``set`` and ``return``/``rewrite``
  are what nginx allows safely inside ``if``), the rule's own pattern last so that ``$1``… are
  its captures; ``%N`` comes from the last condition that matched (saved in a variable);
* a rule that rewrites a URL to itself stops the rules and serves it (Apache makes no
  internal redirect then; nginx's ``last`` would loop until its 500): the target is
  compared with ``$uri`` first;
* ``[C]``, ``[S=n]`` and ``[N]`` change the order of the rules: every rule runs only while
  ``$confmig_go`` is empty, and a jump names the rule to run next (:func:`_flow`); ``[N]``
  writes the ruleset out once per round;
* ``[T=type]`` without a substitution sends the file, once the rules are over, to a named
  location with that type (:func:`_type_dispatch`);
* ``${map:key|default}`` of a ``txt:`` RewriteMap (or a ``rnd:`` one without ``|`` in its
  values, which then never picks at random) is an http-level ``map`` (:class:`Lookups`);
* ``%{ENV:NAME}`` in a substitution, where only earlier ``[E=NAME:literal]`` rules of the
  ruleset set NAME, is an nginx variable those rules set (:class:`EnvVars`): h5bp's
  ``%{ENV:PROTO}`` of its www → non-www redirect;
* ``TEST -d [OR] TEST -f`` is one ``-e`` (one stat per request instead of two).  Apache
  looks at the file only once the rule's pattern matched; nginx runs every ``if`` of the
  location, so a file test costs its stat on every request (conditions have no effect but
  their captures, so the order of the tests does not change an answer).

A rule that cannot be translated exactly is kept as a comment, reported, and replaced by a
denial for the URLs its pattern matches (for the whole location when even the pattern cannot
be translated): nginx may then answer 403 where Apache would not, never the reverse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from confmig.convert.nginx.regex import Untranslatable, per_directory, url_path
from confmig.model.plan import ANSWER_FIELDS, RewritePlan, Source
from confmig.model.rewrite.expand import (
    TOKEN_MAP,
    TOKEN_RAW,
    TOKEN_REF,
    TOKEN_SPAN,
    TOKEN_VAR,
    tokenize,
)
from confmig.model.rewrite.maps import RewriteMap
from confmig.model.rewrite.rules import Condition, RewriteRule

#: mod_rewrite variables with an nginx variable of the same value.
VARIABLES = {
    "HTTP_HOST": "http_host", "REQUEST_URI": "uri", "QUERY_STRING": "args",
    "REQUEST_METHOD": "request_method", "REQUEST_FILENAME": "request_filename",
    "SCRIPT_FILENAME": "request_filename", "THE_REQUEST": "request",
    "HTTP_USER_AGENT": "http_user_agent", "HTTP_REFERER": "http_referer",
    "HTTP_COOKIE": "http_cookie", "HTTP_ACCEPT": "http_accept", "REMOTE_ADDR": "remote_addr",
    "DOCUMENT_ROOT": "document_root", "SERVER_PROTOCOL": "server_protocol",
    "REQUEST_SCHEME": "scheme", "HTTPS": "confmig_https",
}
#: What a variable only a script reads changes: what the script prints.
SCRIPT_FIELDS = frozenset({"body"})
#: The [E=…] of the front controllers' Authorization trick (lower-case, no spaces).
AUTHORIZATION_ENV = "http_authorization:%{http:authorization}"
#: The ``map`` a variable above needs in the http { } context.
VARIABLE_MAPS = {
    "confmig_https": ["# %{HTTPS}: Apache's on/off (nginx's $https is on or empty)",
                      "map $https $confmig_https {", "    on on;", "    default off;", "}"],
    "confmig_esc": ["# whether nginx %-escapes the captures its rewrite module copies: a",
                    "# %-escape or a '+' in the request's path (UNKNOWN_ESCAPING)",
                    "map $request_uri $confmig_esc {", '    "~^[^?]*[%+]" "%25";',
                    '    default "%";', "}"],
}
#: After the ones of an internal rewrite's flag: the slash digit, then $confmig_mapped.
INTERNAL_TAIL = "[01][a-z]*\\z"
#: Apache's internal redirect parses the new path again and %-decodes it; nginx's ``rewrite
#: … last`` does not.  A condition's ``%N``, a variable or a map lookup (nginx copies them
#: as they are) holding a %-escape therefore maps to another file in nginx: ``%1`` of the
#: query ``u=a%3Fb`` is the file ``a?b`` for Apache, ``a%3Fb`` for nginx.  On
#: ``<flag>:<those values>``.  The pattern's ``$N`` is decoded again too (``$1`` of
#: ``/plain/a%253Fb`` is ``a%3Fb``): denied where it holds a %-escape, judged on
#: ``<flag>:<escaping>:<captures>`` (:data:`CAPTURE_DECODED_AGAIN`) and announced as a note
#: (not as untranslatable: every ``$N`` internal rewrite has it, and only a double-encoded
#: ``%25XX`` in the request reaches it).
DECODED_AGAIN = "[\\s\\S]*%[0-9A-Fa-f]{2}"
DECODED_AGAIN_NOTE = ("an internal rewrite with {what} holding a %-escape (Apache decodes the "
                      "new path again, nginx would look for the file with the escape in its "
                      "name): such requests are denied (403)")
#: In ``<escaping>:<captures>``: a %-escape in a capture — escaped by nginx (``%25`` + two
#: hex digits), as it is, or either when the escaping is not known.
CAPTURE_DECODED_AGAIN = ("(?:%25:[\\s\\S]*%25[0-9A-Fa-f]{2}"
                         "|%:[\\s\\S]*%[0-9A-Fa-f]{2}"
                         "|\\*:[\\s\\S]*%(?:25)?[0-9A-Fa-f]{2})")
DECODED_AGAIN_CAPTURE_NOTE = ("a path whose {what} holds a %-escape (a double-encoded %25XX "
                              "in the request) is denied (403): Apache decodes the new path "
                              "again, nginx cannot")
PATH_INFO_NOTE = ("a rewrite without [L] followed by more rules: for a URL with "
                  "PATH_INFO (a missing directory or a file before its last part) Apache's "
                  "next rules see the new path with the PATH_INFO after it; such URLs are "
                  "denied (403) when the rule applies")
#: [T]: the statuses (TYPE_STATUS, TYPE_STATUS + 1…) that error_page sends to the named
#: location of each type, at most TYPE_CODES types per location.
TYPE_STATUS = 590
TYPE_DIRECTORY_NOTE = ("[T] on a directory asked for with its slash: Apache gives its index "
                       "file (or listing) the type; such requests are denied (403)")
TYPE_CODES = 10
#: How many rounds of a ruleset with ``[N]`` are written out (see :func:`_flow`).
N_ROUNDS = 10
CATCH_ALL = frozenset({".", "^", "^(.*)$", ".*", "^.*$", "(.*)", "^(.+)$", ".+", "^/?(.*)$"})
FILE_TESTS = {"-f": "-f", "-d": "-d", "-x": "-x"}
#: A path no file test finds (its parent is a device): the value of a file-test variable
#: that names nothing — nginx with ``disable_symlinks`` takes an empty name for "."
NO_FILE = '"/dev/null/confmig-none"'
#: What the internal rewrites of a location need to know about the request's own URL.
PREAMBLE = [
    "# $confmig_slash: 0 for a directory requested without its slash (mod_dir's 301 comes",
    "# before an internal rewrite takes effect).  $confmig_mapped: not empty when the URL",
    "# maps to a file with no PATH_INFO (it exists, or only its last part is missing).",
    "set $confmig_slash 1;",
    "if (-d $request_filename) { set $confmig_slash 0; }",
    'if ($uri ~ "/\\z") { set $confmig_slash 1; }',
    'set $confmig_mapped "";',
    f"set $confmig_parent {NO_FILE};",
    "if (-e $request_filename) { set $confmig_mapped e; }",
    'if ($request_filename ~ "^(.*)/[^/]+\\z") { set $confmig_parent $1; }',
    'if (-d $confmig_parent) { set $confmig_mapped "${confmig_mapped}p"; }',
]


@dataclass
class RuleNote:
    """A rule (or part of one) not translated faithfully."""

    source: Source
    directive: str
    reason: str
    changes_behaviour: bool = True
    #: the compared fields it may change (None: any) — confmig.convert.result.Note
    fields: frozenset[str] | None = None
    #: the status nginx answers instead of Apache's (a denial's 403; 0: none in particular)
    answer: int = 0


@dataclass
class RewriteOut:
    """What a scope's ruleset becomes inside its ``location``."""

    lines: list[str] = field(default_factory=list)
    try_files: str | None = None
    exact_static: list[str] = field(default_factory=list)  # `location = X {}` (no rules)
    notes: list[RuleNote] = field(default_factory=list)
    uses_amp_args: bool = False
    internal: bool = False  # some rule rewrites internally: the location needs PREAMBLE
    continuing: bool = False  # a rewrite without [L] is followed by more rules
    #: such a rewrite records the answer its path brings in ``$confmig_bad``
    #: (:func:`_pending_escape`)
    pending_escape: bool = False
    alias: AliasGuard | None = None
    #: [T] types: (named location, type, the status that reaches it through error_page);
    #: the renderer writes each named location with the scope's settings and that type.
    typed: list[tuple[str, str, int]] = field(default_factory=list)
    type_pages: set[int] = field(default_factory=set)  # their error_page lines written
    scope_id: str = ""
    http: Any = None  # the server's HttpMaps (RewriteMap lookups need it)
    lookups: Lookups | None = None  # the RewriteMap lookups of the rule being translated
    env: EnvVars | None = None  # the %{ENV:…} the rules set and read (None: none)
    #: a rule that ends the rules sets ``$confmig_go`` to ``stop`` instead of ``break``ing
    #: (:func:`translate`'s *falls_back*)
    stop: bool = False
    #: an ``if`` of :attr:`lines` can match without ending nginx's rewrite phase (its block
    #: ``set``s, ``break``s or redirects): a matching ``if`` makes its block the request's
    #: configuration, which has no ``try_files`` — the renderer then does a front
    #: controller's work by hand before it
    soft_if: bool = False


#: Per-directory patterns that match every URL-path (the empty one too).
MATCH_ALL = frozenset({"^", "", ".*", "^.*", "^.*$", "(.*)", "^(.*)", "^(.*)$"})
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_VALUE = re.compile(r"[A-Za-z0-9_.+-]*")
#: What a scheme-valued environment variable must hold for ``%{ENV:X}://…`` to be a URL.
SCHEMES = frozenset({"http", "https"})


@dataclass
class EnvVars:
    """The environment variables a ruleset both sets (``[E=NAME:value]``) and reads
    (``%{ENV:NAME}`` in a substitution), as nginx variables: ``$confmig_e_NAME`` holds the
    value, ``$confmig_s_NAME`` is 1 once a rule of this pass set it (0 before; both are
    reset where the location's rules start, as an internal redirect starts Apache's
    environment afresh).

    Apache reads ``%{ENV:NAME}`` from the request's notes (module-internal names), then its
    environment — what earlier ``[E=]`` of this pass set, or SetEnvIf, SetEnv… — then the
    server process's.  So the value is known only once a rule of the pass has set it: a
    rule that reads it before is denied (403, announced) unless earlier rules are sure to
    have set it (:meth:`prove`).  A name is tracked only when every rule that touches it
    sets it to a literal and does nothing else (``RewriteRule … - [E=NAME:value]``)."""

    values: dict[str, set[str]]  # lower-case name → the literal values rules give it
    proven: set[str] = field(default_factory=set)  # set for sure before the current rule

    @classmethod
    def of(cls, rules: list[RewriteRule]) -> EnvVars | None:
        """The tracked names of *rules* (None: none)."""
        read = {tok[1][4:].lower() for rule in rules for tok in tokenize(rule.substitution)
                if tok[0] == TOKEN_VAR and tok[1][:4].upper() == "ENV:"}
        values: dict[str, set[str]] = {n: set() for n in read if _ENV_NAME.fullmatch(n)}
        untracked: set[str] = set()
        for rule in rules:
            for entry in rule.env:
                name, _, value = entry.lstrip("!").partition(":")
                if not _ENV_NAME.fullmatch(name):
                    return None  # a name made of variables: which one it is is not known
                name = name.lower()
                if name not in values:
                    continue
                if entry.startswith("!") or not _env_setter(rule) \
                        or not _ENV_VALUE.fullmatch(value):
                    untracked.add(name)
                else:
                    values[name].add(value)
        tracked = {n: v for n, v in values.items() if n not in untracked and v}
        return cls(tracked) if tracked else None

    def reset(self) -> list[str]:
        """The lines that start a pass with no tracked variable set."""
        return [f'set $confmig_e_{n} ""; set $confmig_s_{n} 0;' for n in sorted(self.values)]

    def sets(self, rule: RewriteRule) -> list[str]:
        """What *rule* does to the tracked variables once it applies."""
        out = []
        for entry in rule.env:
            name, _, value = entry.partition(":")
            if name.lower() in self.values:
                out.append(f"set $confmig_e_{name.lower()} {q(value)}; "
                           f"set $confmig_s_{name.lower()} 1;")
        return out

    def untracked(self, rule: RewriteRule) -> bool:
        """Does *rule* set a variable that is not tracked (nginx has no place for it)?"""
        return any(e.lstrip("!").partition(":")[0].lower() not in self.values
                   for e in rule.env)

    def prove(self, rule: RewriteRule, before: list[RewriteRule]) -> None:
        """:attr:`proven`: the tracked variables the rules *before* (all of which ran, in
        a ruleset without jumps) are sure to have set when *rule* runs: a setter whose
        pattern matches every URL without conditions, or two whose one condition each is
        the other's negation."""
        self.proven = set()
        for name in self.values:
            setters = [r for r in before if r.pattern in MATCH_ALL and not r.negate
                       and any(e.partition(":")[0].lower() == name for e in r.env)]
            if any(not r.conditions for r in setters):
                self.proven.add(name)
                continue
            single = [r.conditions[0] for r in setters if len(r.conditions) == 1
                      and not r.conditions[0].ornext]
            keys = {(c.test, c.kind, c.pattern, c.nocase, c.negate) for c in single}
            if any((*k[:4], not k[4]) in keys for k in keys):
                self.proven.add(name)

    def scheme_led(self, target: str) -> bool:
        """Is *target* (nginx) a tracked variable that always holds http or https, then
        ``://`` — a URL whenever the variable is set?"""
        match = re.match(r"\$\{confmig_e_(\w+)\}://", target)
        return match is not None and bool(self.values.get(match[1])) \
            and self.values[match[1]] <= SCHEMES


def _env_setter(rule: RewriteRule) -> bool:
    """``RewriteRule PATTERN - [E=…]`` with conditions at most: nothing but variables."""
    return (rule.nosub or rule.substitution == "-") and not (
        rule.status_flag or rule.redirect or rule.last or rule.end or rule.cookies
        or rule.mime_type or rule.handler or rule.skip or rule.next or rule.chain
        or rule.proxy)


def q(text: str) -> str:
    """*text* as one double-quoted nginx argument.  nginx turns ``\\"``, ``\\'``,
    ``\\\\``, ``\\t``, ``\\r``, ``\\n`` inside quotes into one character and keeps any other
    backslash as written, so only a backslash before one of those (or at the end) is doubled:
    regexes stay readable (``"\\.php\\z"``)."""
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\" if text[i + 1:i + 2] in ('"', "'", "\\", "t", "r", "n", "")
                       else "\\")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


qr = q


@dataclass(frozen=True)
class AliasGuard:
    """mod_alias's redirects of the scope: ``$status_var`` and ``$target_var`` are maps on
    ``$uri`` (empty when none matches); an internal rewrite asks them first."""

    status_var: str
    target_var: str
    statuses: list[str]

    def answer(self, prefix: str, flag: str | None = None) -> list[str]:
        """The lines that redirect when one matches (after *flag* equals *prefix*)."""
        lines = [f'set $confmig_a "${{{flag[1:]}}}:${{{self.status_var[1:]}}}";'] \
            if flag is not None else []
        for code in self.statuses:
            test = (f"{self.status_var} = {code}" if flag is None else
                    f'$confmig_a ~ "^{prefix}[01][a-z]*:{code}\\z"')
            action = f"return {code};" if code == "410" else \
                f"return {code} {self.target_var};"
            lines.append(f"if ({test}) {{ {action} }}")
        return lines


def translate(plan: RewritePlan, scope_id: str, alias: AliasGuard | None = None,
              http: Any = None, falls_back: bool = False) -> RewriteOut:
    """The nginx form of *plan* for the scope whose variables are named after *scope_id*;
    *alias*: the scope's mod_alias redirects, which beat an internal rewrite; *http*: the
    server's :class:`~confmig.convert.nginx.maps.HttpMaps` (for RewriteMap lookups).

    *falls_back*: a front controller's lines follow the rules (FallbackResource): a rule
    that ends the rules (``- [L]``, an ``[L]`` rewrite of a URL to its own file) must not
    ``break`` — inside an ``if`` that makes the ``if`` block the request's configuration
    and skips those lines, so a missing file would be nginx's 404 where Apache falls back.
    The rules then run as with ``[S]`` (:func:`_flow`), and such a rule sets
    ``$confmig_go`` so that none after it applies."""
    out = RewriteOut()
    out.http = http
    out.alias = alias
    out.scope_id = scope_id
    rules = list(plan.rules)
    if not rules:
        return out
    fc = _front_controller(plan, rules, out)
    if fc:
        return out
    body: list[str] = []
    out.lines, saved_lines = body, out.lines
    out.env = EnvVars.of(rules)
    if out.env is not None:
        body += out.env.reset()
    out.stop = falls_back and any(_only_stops(r) for r in rules)
    if out.stop or any(r.chain or r.skip or r.next or (_typed(r) and r.nosub) for r in rules):
        out.lines += _flow(plan, rules, out)
    else:
        for index, rule in enumerate(rules):
            out.lines.append(f"# {_where(rule)} {_text(rule)}")
            if out.env is not None:
                out.env.prove(rule, rules[:index])
            try:
                out.lines += _rule(plan, rule, "", out, last=index + 1 >= len(rules))[0]
            except Untranslatable as exc:
                out.lines += _deny(plan, rule, str(exc), out)
        out.lines += _bad_escape_end(out)
    if out.pending_escape:
        body[:0] = ['set $confmig_bad "";']
    if out.continuing and not any("set $confmig_start " in line for line in body):
        # the request as it came, for the PATH_INFO test of _internal
        body[:0] = ['set $confmig_start "${confmig_mapped}:$uri";']
    out.soft_if |= out.internal  # PREAMBLE's `if`s set variables
    out.lines = saved_lines + (PREAMBLE if out.internal else []) + body
    return out


def _flow(plan: RewritePlan, rules: list[RewriteRule], out: RewriteOut) -> list[str]:
    """A ruleset with ``[C]``, ``[S]`` or ``[N]``: every rule runs only while ``$confmig_go``
    is empty; a rule that makes Apache jump sets it to the label of the rule to run next,
    and that rule empties it again (nginx has no jumps, but its rewrite directives run in
    order).  ``[N]`` repeats the whole ruleset: the rules are written out once per round,
    :data:`N_ROUNDS` rounds at most (Apache's limit is ``[N=n]``, 32000 by default: a
    request that needs more rounds than are written answers 500, announced)."""
    n = len(rules)
    rounds = 1
    if any(r.next for r in rules):
        rounds = max(1, min(N_ROUNDS, max(r.max_rounds - 1 for r in rules if r.next)))
    jumps: dict[tuple[int, int], list[tuple[str, str]]] = {}  # (round, rule) → its jumps
    labels: set[str] = set()
    for r in range(1, rounds + 1):
        for j, rule in enumerate(rules):
            after: list[tuple[str, str]] = []
            if rule.chain:
                k = j
                while k < n and rules[k].chain:
                    k += 1
                after.append(("unless", _label(r, k + 1, n)))
            if not (rule.last or rule.end or rule.status_flag or rule.redirect):
                if rule.next:
                    if r + 1 >= rule.max_rounds or r == rounds:
                        after.append(("500", ""))
                    else:
                        after.append(("when", f"s{r + 1}_0"))
                elif rule.skip:
                    after.append(("when", _label(r, j + rule.skip + 1, n)))
            labels.update(label for kind, label in after if label)
            jumps[(r, j)] = after
    lines = ["# [C]/[S]/[N]: a rule runs while $confmig_go is empty; a jump names the next "
             "rule to run", 'set $confmig_go "";']
    for r in range(1, rounds + 1):
        if r > 1:
            lines.append(f"# [N]: round {r}, the rules again from the first (after an [N])")
        for j, rule in enumerate(rules):
            label = f"s{r}_{j}"
            if label in labels:
                out.soft_if = True
                lines.append(f'if ($confmig_go = {label}) {{ set $confmig_go ""; }}')
            lines.append(f"# {_where(rule)} {_text(rule)}")
            try:
                rule_lines, matched = _rule(plan, rule, "", out,
                                            last=j + 1 >= n and not rule.next,
                                            guard="${confmig_go}")
            except Untranslatable as exc:
                lines += _deny_in_flow(plan, rule, str(exc), out, jumps[(r, j)])
                continue
            lines += rule_lines
            for kind, target in jumps[(r, j)]:
                out.soft_if |= kind != "500"  # a jump sets $confmig_go
                if kind == "unless":
                    lines.append(f'if ($confmig_r !~ "^(?:s|{matched[1:]})") '
                                 f"{{ set $confmig_go {target}; }}")
                elif kind == "when":
                    if rule.next and matched.endswith(INTERNAL_TAIL):
                        # a directory without its slash: mod_dir's 301 wins over the rewrite
                        ones = matched[:-len(INTERNAL_TAIL)]
                        lines.append(f'if ($confmig_r ~ "{ones}0") {{ break; }}')
                    lines.append(f'if ($confmig_r ~ "{matched}") '
                                 f"{{ set $confmig_go {target}; }}")
                else:
                    lines.append(f'if ($confmig_r ~ "{matched}") {{ return 500; }}')
        end = f"s{r}_end"
        if rounds > 1 and r < rounds:  # the pass is over unless an [N] names round r + 1
            out.soft_if = True
            lines.append(f'if ($confmig_go ~ "^(?:{end})?\\z") {{ set $confmig_go sdone; }}')
    if out.internal:  # the request as it came, for the PATH_INFO test of _internal
        lines.insert(2, 'set $confmig_start "${confmig_mapped}:$uri";')
    lines += _bad_escape_end(out)
    if out.typed:
        lines[2:2] = ['set $confmig_type "";', "set $confmig_u0 $uri;"]
        lines += _type_dispatch(out)
    if any(r.next and r.max_rounds - 1 > rounds for r in rules):
        rule = next(r for r in rules if r.next)
        out.notes.append(RuleNote(_src(rule), "RewriteRule",
                                  f"[N]: the rules are written out for {rounds} rounds; a "
                                  f"request that needs more answers 500 (Apache goes on up "
                                  f"to {rule.max_rounds - 1} rounds)", answer=500))
    return lines


def _type_code(rule: RewriteRule, out: RewriteOut, substituted: bool = False) -> int:
    """The status that sends a request to the named location serving [T]'s type (0 when
    the rule's [T] is not translated).  Apache applies the type to what this pass serves:
    a substitution means an internal redirect, which drops it (*substituted*: the code for a
    URL the rule rewrites to its own file, which makes no redirect)."""
    mime = (rule.mime_type or "").lower()
    if (not rule.nosub and not substituted) or not mime or out.alias is not None \
            or any(c in mime for c in "%$\\\"'{}; \t"):
        return 0
    code = next((known_code for _name, known, known_code in out.typed if known == mime), 0)
    if not code:
        if len(out.typed) >= TYPE_CODES:
            return 0
        code = TYPE_STATUS + len(out.typed)
        out.typed.append((f"@confmig_t{out.scope_id}_{len(out.typed)}", mime, code))
    out.notes.append(RuleNote(_src(rule), "RewriteRule", TYPE_DIRECTORY_NOTE, answer=403))
    return code


def _typed(rule: RewriteRule) -> bool:
    """Whether the rule's ``[T]`` can give a file its type: not with ``[R]``, ``[F]`` or
    ``[G]``, which answer with Apache's own page."""
    return bool(rule.mime_type) and not (rule.redirect or rule.status_flag)


def _self_typed(out: RewriteOut, code: int) -> list[str]:
    """The ``error_page`` that sends *code* to the named location of its type (once)."""
    if code in out.type_pages:
        return []
    out.type_pages.add(code)
    name, mime = next((n, m) for n, m, c in out.typed if c == code)
    return [f"error_page {code} = {name};  # {mime}"]


def _type_dispatch(out: RewriteOut) -> list[str]:
    """After the rules: the file served gets [T]'s type in a named location, unless a rule
    rewrote the URL (Apache's internal redirect drops the type)."""
    out.soft_if = True  # its `if (-d …) { set … }`
    lines = ["# [T]: the type of the file served, unless a rule rewrote the URL (Apache's "
             "internal redirect drops it)",
             'set $confmig_tt "${confmig_type}:$uri";',
             "# a directory asked for with its slash: Apache gives its index file (or listing)",
             "# the type (not translated: denied); without its slash: nginx's 301, as Apache's",
             'if (-d $request_filename) { set $confmig_tt "${confmig_type}:d:$uri"; }',
             'if ($confmig_tt ~ "^\\d+:d:.*/\\z") { return 403; }']
    for name, mime, code in out.typed:
        lines += [f'if ($confmig_tt = "{code}:$confmig_u0") {{ return {code}; }}',
                  f"error_page {code} = {name};  # {mime}"]
    return lines


def _label(r: int, k: int, n: int) -> str:
    """The label of rule *k* of round *r* (the end of the round past the last rule)."""
    return f"s{r}_{k}" if k < n else f"s{r}_end"


def _deny_in_flow(plan: RewritePlan, rule: RewriteRule, reason: str, out: RewriteOut,
                  after: list[tuple[str, str]]) -> list[str]:
    """An untranslatable rule among jumps: 403 when it runs and its pattern matches;
    when its pattern does not match, the chain after it is skipped as Apache skips it."""
    out.notes.append(RuleNote(_src(rule), "RewriteRule",
                              f"{reason}: requests it matches are denied (403)", answer=403))
    lines = [f"# untranslatable ({reason}): {_text(rule)}"]
    try:
        if rule.negate:
            raise Untranslatable("negated")
        regex = per_directory(rule.pattern, plan.strip, rule.nocase)
    except Untranslatable:
        return [*lines, "return 403;"]
    out.soft_if = True  # its `if` that sets $confmig_p
    lines += ["set $confmig_p 0;", f"if ($uri ~ {qr(regex)}) {{ set $confmig_p 1; }}",
              'set $confmig_r "${confmig_go}${confmig_p}";',
              "if ($confmig_r = 1) { return 403; }"]
    for kind, target in after:
        if kind == "unless":
            lines.append(f"if ($confmig_r = 0) {{ set $confmig_go {target}; }}")
    return lines


def _front_controller(plan: RewritePlan, rules: list[RewriteRule], out: RewriteOut) -> bool:
    """``[^literal$ - [L]]* + !-f !-d catch-all → target`` as try_files (rules that only
    hand the Authorization header to scripts may come first: they change no answer)."""
    *before, last = rules
    noops = [r for r in before if _authorization_only(r)]
    before = [r for r in before if not _authorization_only(r)]
    for rule in before:
        literal = _literal(rule.pattern)
        if (rule.substitution != "-" or not rule.last or rule.conditions or rule.negate
                or literal is None or _side_effects(rule)):
            return False
    conds = {(c.test, c.kind, c.negate) for c in last.conditions}
    wanted = {("%{REQUEST_FILENAME}", "-f", True), ("%{REQUEST_FILENAME}", "-d", True)}
    if (conds != wanted or len(last.conditions) != 2 or last.pattern not in CATCH_ALL
            or last.negate or last.redirect or last.status_flag or last.nosub
            or _side_effects(last) or last.qsdiscard or last.qslast):
        return False
    target = last.substitution
    if any(tok[0] != TOKEN_SPAN for tok in tokenize(target)) or "?" in target \
            or target.startswith(("http://", "https://")):
        return False
    if not target.startswith("/"):
        target = plan.relative_to + target
    out.lines.append(f"# {_where(last)} front controller: "
                     f"{', '.join(str(c) for c in last.conditions)}; {_text(last)}")
    out.try_files = f"$uri $uri/ {target}$is_args$args"
    for rule in noops:
        out.lines.append(f"# {_where(rule)} {_text(rule)}: for scripts only (left out)")
        out.notes.append(_authorization_note(rule))
    for rule in before:
        literal = _literal(rule.pattern)
        assert literal is not None
        out.lines.append(f"# {_where(rule)} {_text(rule)}: served as it is (no rules)")
        out.exact_static.append(plan.strip + literal)
    return True


def _only_stops(rule: RewriteRule) -> bool:
    """``RewriteRule PATTERN - [L]`` (or ``[END]``), or an ``[L]`` rewrite relative to the
    directory, which may rewrite a URL to its own file: the rule may end the rules."""
    if rule.redirect or rule.status_flag:
        return False
    if rule.nosub or rule.substitution == "-":
        return rule.last or rule.end
    return rule.last and _relative(_split_query(rule.substitution)[0])


def _authorization_only(rule: RewriteRule) -> bool:
    """``RewriteRule … - [E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]``: no answer changes."""
    # (no conditions: a condition on %{HTTP:Authorization} adds it to Vary)
    return (rule.nosub and not (rule.last or rule.end or rule.status_flag or rule.redirect)
            and not rule.conditions and bool(rule.env)
            and all(e.replace(" ", "").lower() == AUTHORIZATION_ENV for e in rule.env)
            and not (rule.cookies or rule.mime_type or rule.handler or rule.skip or rule.next
                     or rule.chain or rule.proxy))


def _authorization_note(rule: RewriteRule) -> RuleNote:
    return RuleNote(_src(rule), "RewriteRule",
                    "[E=HTTP_AUTHORIZATION:%{HTTP:Authorization}] only hands the header to "
                    "scripts: nginx's fastcgi_params pass HTTP_AUTHORIZATION themselves "
                    "(left out)", False)


#: mod_rewrite variables read from a request header, which Apache adds to ``Vary`` when a
#: condition reading one holds (``lookup_header``), besides ``%{HTTP:name}``.
HEADER_VARIABLES = frozenset({"HTTP_HOST", "HTTP_ACCEPT", "HTTP_COOKIE", "HTTP_REFERER",
                              "HTTP_FORWARDED", "HTTP_USER_AGENT", "HTTP_PROXY_CONNECTION"})


def _vary(rule: RewriteRule) -> frozenset[str]:
    """``{"vary"}`` when a condition of *rule* reads a request header without ``[NV]``
    (an ``expr`` condition may: ``req()``, ``http()``): leaving the rule out leaves out the
    ``Vary`` Apache adds when it holds."""
    for cond in rule.conditions:
        if cond.novary:
            continue
        if cond.kind == "expr":
            return frozenset({"vary"})
        for tok in tokenize(cond.test):
            if tok[0] == TOKEN_VAR and (tok[1].upper().startswith("HTTP:")
                                        or tok[1].upper() in HEADER_VARIABLES):
                return frozenset({"vary"})
    return frozenset()


def _literal(pattern: str) -> str | None:
    """``^index\\.php$`` → ``index.php`` (None unless a plain anchored literal)."""
    if not (pattern.startswith("^") and pattern.endswith("$")):
        return None
    body = pattern[1:-1]
    text = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and not body[i + 1].isalnum():
            text.append(body[i + 1])
            i += 2
            continue
        if not (ch.isalnum() or ch in "-_/"):
            return None
        text.append(ch)
        i += 1
    return "".join(text)


def _side_effects(rule: RewriteRule) -> bool:
    return bool(rule.env or rule.cookies or rule.mime_type or rule.handler or rule.skip
                or rule.next or rule.chain or rule.proxy or rule.end)


def _rule(plan: RewritePlan, rule: RewriteRule, number: str, out: RewriteOut, last: bool,
          guard: str | None = None) -> tuple[list[str], str]:
    """The rule's lines, and a regex for ``$confmig_r{number}`` that matches when the rule's
    pattern and conditions held ("" when the lines set no such flag).  With *guard* (a
    variable that is empty when the rule is to run), the lines always set the flag, with
    the guard's value first."""
    if rule.proxy:
        raise Untranslatable("[P] proxies (not modelled)")
    if rule.end and not rule.nosub:
        raise Untranslatable("[END] after a rewrite has no nginx form (nginx re-runs the "
                             "target location's rules)")
    if rule.cookies:
        out.notes.append(RuleNote(_src(rule), "RewriteRule", "[CO] cookies are not sent",
                                  fields=frozenset({"set-cookie"})))
    if rule.handler:
        raise Untranslatable("[T]/[H] change the type or handler")
    typed = self_typed = 0
    if not _typed(rule):
        pass  # [R], [F], [G] answer with Apache's own page: the type changes nothing
    elif not rule.nosub:
        # a substitution: an internal redirect drops the type (r->notes), but for a URL
        # rewritten to its own file
        if guard is None and (rule.last or last):
            self_typed = _type_code(rule, out, substituted=True)
        if not self_typed:
            raise Untranslatable("[T]/[H] change the type or handler")
    else:
        typed = _type_code(rule, out) if guard is not None else 0
        if not typed:
            raise Untranslatable("[T]/[H] change the type or handler")
    env_sets = out.env.sets(rule) if out.env is not None else []
    noop = ""
    if _authorization_only(rule):
        # the front controllers' Authorization trick (WordPress, Laravel, Symfony…)
        out.notes.append(_authorization_note(rule))
        noop = f"# {_where(rule)} only hands the Authorization header to scripts: left out"
    elif rule.env:
        if out.env is None or out.env.untracked(rule):
            out.notes.append(RuleNote(_src(rule), "RewriteRule",
                                      "[E=…] sets an environment variable nginx has no place "
                                      "for (only scripts and env= conditions read it)",
                                      fields=SCRIPT_FIELDS | _vary(rule)))
        if rule.nosub and not (rule.status_flag or rule.last) and not env_sets:
            noop = f"# {_where(rule)} only sets environment variables: left out"
    if noop and guard is None:
        return [noop], ""
    if typed and not rule.status_flag:
        noop = noop or f"# {_where(rule)} [T={rule.mime_type}]: given when the rules are over"
    if rule.backref_escapes or rule.escape_backrefs or rule.backref_noplus or rule.qslast \
            or rule.discard_path_info or rule.unsafe_allow_3f or rule.unsafe_prefix_stat:
        raise Untranslatable("[B]/[BNP]/[QSL]/[DPI]/[UnsafeAllow3F] are not translated")
    regex = per_directory(rule.pattern, plan.strip, rule.nocase)
    lines: list[str] = [noop] if noop else []
    saved: dict[int, str] = {}
    checks: list[list[str]] = []
    if rule.conditions:
        checks, saved = _conditions(rule, number, lines)
    lookups = out.lookups = Lookups({m.name: m for m in plan.maps}, out.http, saved,
                                    env=out.env)
    action = "set $confmig_noop 1;" if noop else \
        _action(plan, rule, number, regex, saved, out, last)
    qmark = _unsafe_qmark(rule, lookups, _redirects(action) and not rule.noescape) \
        if not noop else Qmark()
    if out.continuing:  # a rewrite before may have matched: nginx then escapes nothing
        qmark.escaped = UNKNOWN_ESCAPING
    redirects = _redirects(action)
    if redirects:
        qmark.redirect = "noescape" if rule.noescape else "escape"
        qmark.returns = action.startswith("return")
    if redirects or action.startswith("rewrite "):
        _, has_query, query = _split_query(rule.substitution)
        toks = tokenize(query) if has_query and not rule.nosub else ()
        qsappend = rule.qsappend and not rule.qsdiscard
        expands = any(t[0] not in (TOKEN_SPAN, TOKEN_RAW) for t in toks)
        escaped = redirects and not rule.noescape
        if expands or (escaped and toks and qsappend):
            qmark.query = _template(toks, saved, lookups)
            qmark.qsappend = qsappend
            qmark.query_values = any(t[0] in (TOKEN_VAR, TOKEN_MAP) for t in toks)
            qmark.query_ctl = not escaped
            qmark.query_captures = any(t[0] == TOKEN_REF for t in toks)
        note = qmark.note(rule)
        if note is not None:
            out.notes.append(note)
    if env_sets:
        action = " ".join(env_sets)
    if typed:  # a nosub rule ([T] with a substitution: self_typed)
        action = f"set $confmig_type {typed};" + (
            " set $confmig_go stop;" if rule.last or rule.end else "")
    ones = "1" * (len(checks) + 1)
    if action.startswith("rewrite ") and not action.endswith(("permanent;", "redirect;")):
        if lookups.env_read:
            raise Untranslatable("%{ENV:…} in an internal rewrite (not translated)")
        out.internal = True
        copied = qmark.copied_as_they_are()
        if copied:
            out.notes.append(RuleNote(_src(rule), "RewriteRule", DECODED_AGAIN_NOTE.format(
                what=", ".join(copied)), answer=403))
        if qmark.pattern_captures():
            out.notes.append(RuleNote(_src(rule), "RewriteRule",
                                      DECODED_AGAIN_CAPTURE_NOTE.format(
                                          what=", ".join(qmark.pattern_captures())),
                                      changes_behaviour=False, answer=403))
        continuing = not action.endswith(" last;")  # more rules see the new path
        if continuing:
            out.notes.append(RuleNote(_src(rule), "RewriteRule", PATH_INFO_NOTE,
                                      answer=403))
            out.continuing = True
            out.pending_escape = True
        if self_typed:
            lines += _self_typed(out, self_typed)
        return (_internal(plan, rule, number, regex, saved, checks, action, lines, out.alias,
                          guard or "", continuing, lookups, self_typed, qmark, out.stop,
                          from_start=out.continuing and not continuing),
                f"^{ones}{INTERNAL_TAIL}")
    ends = action == "break;"  # a `- [L]`: the rules end here
    if not checks and guard is None and not lookups.sets and not lookups.env_read \
            and not (ends and out.pending_escape):
        lines += _qmark_lines(rule, regex, qmark)  # the rule applies wherever it matches
        # its `if` that records the '?' test; an `if` around an action that does not end
        # the rewrite phase (a bare `rewrite` line is no `if`)
        out.soft_if |= bool(qmark) or not (action.startswith("return ") or (
            action.startswith("rewrite ") and not rule.negate))
        if rule.negate:
            return [*lines, f"if ($uri !~ {qr(regex)}) {{ {action} }}"
                    if action.startswith(("return", "break", "set")) else
                    f"if ($uri !~ {qr(regex)}) {{ {_rewrite_any(action)} }}"], ""
        if action.startswith("rewrite "):
            return [*lines, action], ""
        return [*lines, f"if ($uri ~ {qr(regex)}) {{ {action} }}"], ""
    flag = f"$confmig_r{number}"
    op = "!~" if rule.negate else "~"
    lines.append(f'set $confmig_p{number} "";')
    sets = "".join(f" {line}" for line in lookups.sets)  # where $1… are the pattern's
    lines += qmark.resets()
    sets += qmark.sets()
    out.soft_if = True
    lines.append(f"if ($uri {op} {qr(regex)}) {{ set $confmig_p{number} 1;{sets} }}")
    parts = "".join(f"${{confmig_g{number}_{i}}}" for i in range(len(checks)))
    lines.append(f'set {flag} "{guard or ""}{parts}${{confmig_p{number}}}";')
    lines += _qmark_checks(rule, qmark, flag, ones)
    lines += _env_unset(rule, number, flag, ones, lookups, out)
    if ends:
        lines += _bad_escape_end(out, flag, ones)
    final = action if not action.startswith("rewrite ") or not rule.negate else \
        _rewrite_any(action)
    lines.append(f"if ({flag} = {ones}) {{ {final} }}")
    return lines, f"^{ones}\\z"


#: nginx %-escapes a capture (``$1``…) that its rewrite module copies when the request's
#: path had a %-escape or a '+' (``quoted_uri``, ``plus_in_uri``, set when the request line
#: is parsed and never again; a '?' becomes %3F, a '%' %25) — until a ``rewrite`` matches
#: (``e->quote``).  ``$confmig_esc`` (:data:`VARIABLE_MAPS`) is "%25" when it does, "%"
#: when it does not; after a rewrite that may have matched it is not known (``*``).
UNKNOWN_ESCAPING = "*"
#: In ``<escaping>:<captures>``: a '?' (escaped: %3F, which no '%' of the value can make:
#: that is %25; not known: either), and a '%' not followed by two hex digits.
CAPTURE_QMARK = "(?:%25:[\\s\\S]*%3F|%:[\\s\\S]*\\?|\\*:[\\s\\S]*(?:\\?|%3F))"
CAPTURE_BAD_ESCAPE = ("(?:%25:[\\s\\S]*%25(?![0-9A-Fa-f]{2})"
                      "|%:[\\s\\S]*%(?![0-9A-Fa-f]{2})"
                      "|\\*:[\\s\\S]*%(?:25)?(?![0-9A-Fa-f]{2}))")
#: In ``<values>`` (variables, map lookups: copied as they are).
VALUE_QMARK = "[\\s\\S]*\\?"
VALUE_BAD_ESCAPE = "[\\s\\S]*%(?![0-9A-Fa-f]{2})"
#: The bytes Apache's ``ap_escape_uri`` leaves as they are (``T_OS_ESCAPE_PATH``); it
#: %-escapes every other one, in lower-case hex, in the path of an ``[R]`` target without
#: ``[NE]`` (``escape_absolute_uri``).  nginx copies a variable as it is and a capture
#: %-escaped (``NGX_ESCAPE_ARGS``, upper-case hex) when ``$confmig_esc`` is "%25"; ``rewrite
#: … redirect`` then decodes the target's %-escapes of bytes 0x26-0x7e (a '%' before no hex
#: pair is dropped), ``return`` sends it as it is.  nginx's Location must be Apache's URL:
#: the same bytes, but for the case of a %-escape's hex digits and bytes Apache escapes
#: that nginx leaves as they are ('{', '[', a non-ASCII byte…: a client sends them
#: %-escaped); a '%', '?', '#', a space or a control character changes the URL.  The
#: regexes below (on ``<escaping>:<captures>`` and ``<values>``) match where it would.
#: (Apache leaves ``A-Za-z0-9$-_.+!*'(),:;@&=/~`` as they are: :data:`_URI_SAFE_TEXT`.)
_ANY = "[\\s\\S]*"
_STRUCTURAL = "[?%#\\x00-\\x20\\x7f]"
#: With ``[NE]`` Apache copies a value as it is: a '%' ``rewrite … redirect`` decodes or
#: drops (in a value), an escaped capture's %-escape it does not decode back.
_NE_RAW = "(?:\\?|%(?![01][0-9A-Fa-f]|2[0-5]|[89A-Fa-f][0-9A-Fa-f]))"
_NE_ESCAPED = "(?:\\?|%(?:[01]|2[0-5]|7F|[89A-F]))"
#: (captures, values) for each (nginx form, [NE]).  An escaped capture is Apache's but for
#: an escaped '?' (Apache's own 403); one that is not escaped holds no '%' unless a
#: condition's %N took it from the query, where Apache escapes it again.
REDIRECT_PATTERNS = {
    ("rewrite", False): (f"(?:%25:{_ANY}%3F|[%*]:{_ANY}{_STRUCTURAL})",
                         f"{_ANY}{_STRUCTURAL}"),
    ("rewrite", True): (
        f"(?:%25:{_ANY}{_NE_ESCAPED}|%:{_ANY}{_NE_RAW}|\\*:{_ANY}(?:{_NE_ESCAPED}|{_NE_RAW}))",
        f"{_ANY}{_NE_RAW}"),
    ("return", False): (f"(?:%25|%|\\*):{_ANY}{_STRUCTURAL}", f"{_ANY}{_STRUCTURAL}"),
    ("return", True): (f"(?:%25|%|\\*):{_ANY}[?%]", f"{_ANY}\\?"),
}
#: The query of an ``[R]`` target without ``[NE]``: Apache %-escapes it (``ap_escape_uri``,
#: as the path) unless it is the request's own; nginx copies it as it is (a capture
#: %-escaped as above, never decoded after the '?').  On ``<escaping>:<target's
#: query>\n<the request's>``: the target's is not the request's and holds what changes the
#: URL (an escaped capture's '&', '+', ';' too, which Apache leaves as they are); with
#: ``[QSA]`` (the request's own follows: never equal) a '%' or '?' of the request's too.
_Q_RAW = "[%?#\\x00-\\x09\\x0b-\\x20\\x7f]"
_Q_ESCAPED = "(?:[?#\\x00-\\x09\\x0b-\\x20\\x7f]|%(?:2B|26|3B|3F))"
_Q_ARGS = f"[^\\n]*\\n{_ANY}[%?]"
QUERY_ESCAPED = (f"(?:%25:(?!([^\\n]*)\\n\\1\\z)[^\\n]*?{_Q_ESCAPED}"
                 f"|[%*]:(?!([^\\n]*)\\n\\2\\z)[^\\n]*?{_Q_RAW})")
QUERY_ESCAPED_QSA = f"(?:%25:[^\\n]*?{_Q_ESCAPED}|[%*]:[^\\n]*?{_Q_RAW}|{_Q_ARGS})"
#: Where the target's query also has variables or map lookups (copied as they are).
QUERY_ESCAPED_RAW = f"[^:]*:(?!([^\\n]*)\\n\\1\\z)[^\\n]*?{_Q_RAW}"
QUERY_ESCAPED_RAW_QSA = f"(?:[^:]*:[^\\n]*?{_Q_RAW}|{_Q_ARGS})"
#: Apache answers 403 when the query of a target it does not escape (an internal rewrite,
#: ``[NE]``) holds a space or a control character (``ap_scan_vchar_obstext``): on
#: ``<escaping>:<target's query>``; an escaped capture's %-escape of one counts too (a
#: variable's ``%20`` then as well: stricter, only where the query has both).
_CTL = "[\\x00-\\x20\\x7f]"
QUERY_CTL = (f"(?:%:{_ANY}{_CTL}|(?:%25|\\*):{_ANY}(?:{_CTL}|%(?:[01][0-9A-Fa-f]|20|7[Ff])))")
QUERY_CTL_RAW = f"[^:]*:{_ANY}{_CTL}"  # no capture in the query
QUERY_CTL_NOTE = ("a query with a captured %-escape and a variable: a variable's %-escape of "
                  "a space or control character counts as one (Apache's 403); such requests "
                  "are denied (403)")
QUERY_NOTE = ("an [R] target's query that is not the request's, holding a '%', '?', '#', "
              "a space or a control character (Apache %-escapes it, nginx sends it as it "
              "is): such requests are denied (403)")
#: What the 403 of a redirect whose Location would differ stands for ({what}: the
#: expansions).
ESCAPE_NOTE = {
    "escape": ("an [R] target with {what} holding a '%', '?', '#', a space or a control "
               "character (Apache %-escapes it, nginx's redirect would not or would decode "
               "it): such requests are denied (403)"),
    "noescape": ("an [R,NE] target with {what} holding a '%' nginx's redirect decodes or "
                 "escapes (Apache copies the value as it is): such requests are denied (403)"),
}


@dataclass
class Qmark:
    """The expansions of a substitution before its own ``?`` (Apache's ``do_expand`` with
    ``unsafe_qmark``): a ``?`` one of them brings makes Apache (2.4.60+, without
    ``[UnsafeAllow3F]``) answer 403.  ``captures``: the pattern's ``$N`` and the last
    condition's ``%N`` (saved variables), which nginx may have %-escaped
    (:data:`UNKNOWN_ESCAPING`); ``values``: variables (``%{REQUEST_URI}`` is ``$uri``, the
    decoded path; ``%{QUERY_STRING}``, ``%{HTTP:…}``…) and RewriteMap lookups, as they
    are (a lookup whose default copies a back-reference counts as a capture).  Set
    inside the pattern's ``if`` (where ``$1``… are its captures) as ``$confmig_qmark``
    (``<escaping>:<captures>``) and ``$confmig_qmarkv``."""

    captures: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    escaped: str = "$confmig_esc"  # how the captures were copied (UNKNOWN_ESCAPING)
    #: an [R] target: "escape" (Apache %-escapes what they bring), "noescape" ([NE]), ""
    redirect: str = ""
    returns: bool = False  # the redirect is nginx's ``return`` (else ``rewrite … redirect``)
    #: an [R] target's own query (nginx) when Apache may %-escape it: set as
    #: ``$confmig_rq`` ("1:" first) where the pattern matched (:data:`QUERY_ESCAPED`)
    query: str | None = None
    qsappend: bool = False  # [QSA]: the request's query follows it
    query_values: bool = False  # variables or lookups in it (else captures and text only)
    #: not escaped (an internal rewrite, [NE]): Apache's 403 for a space or a control
    #: character in the query (:data:`QUERY_CTL`) is the check, not QUERY_ESCAPED
    query_ctl: bool = False
    query_captures: bool = False  # $N or %N in it

    def __bool__(self) -> bool:
        return bool(self.captures or self.values or self.query is not None)

    def copied_as_they_are(self) -> list[str]:
        """The expansions before the ``?`` that nginx copies without %-escaping them: the
        variables, the map lookups and the conditions' ``%N`` (saved variables) — not the
        pattern's ``$N`` (:data:`DECODED_AGAIN`)."""
        return [*(c for c in self.captures if c.startswith("${")), *self.values]

    def pattern_captures(self) -> list[str]:
        """The pattern's ``$N`` before the ``?`` (nginx %-escapes them where the request's
        path had a %-escape: :data:`CAPTURE_DECODED_AGAIN`)."""
        return [c for c in self.captures if not c.startswith("${")]

    def patterns(self) -> tuple[str, str]:
        """The regexes (captures, values) of what is denied: a '?' — and in a redirect,
        whatever would make nginx's Location differ from Apache's (a '?' is among it)."""
        if not self.redirect:
            return CAPTURE_QMARK, VALUE_QMARK
        return REDIRECT_PATTERNS[("return" if self.returns else "rewrite",
                                  self.redirect == "noescape")]

    def note(self, rule: RewriteRule) -> RuleNote | None:
        """The announcement of the redirects denied beyond Apache's own 403 (None: none)."""
        notes = []
        only_pattern_captures = not self.values and self.escaped != UNKNOWN_ESCAPING and all(
            not c.startswith("${") for c in self.captures)
        if self.redirect == "escape" and not self.returns and only_pattern_captures:
            pass  # $N: escaped by nginx as Apache does, or holding none of those bytes
        elif self.redirect and (self.captures or self.values):
            what = ", ".join([*self.captures, *self.values])
            notes.append(ESCAPE_NOTE[self.redirect].format(what=what))
        if self.query is not None and not self.query_ctl:
            notes.append(QUERY_NOTE + (" (with [QSA], the request's query too)"
                                       if self.qsappend else ""))
        elif self.query_ctl and self.query_values and self.query_captures:
            notes.append(QUERY_CTL_NOTE)
        if not notes:
            return None
        return RuleNote(_src(rule), "RewriteRule", "; ".join(notes), answer=403)

    def resets(self) -> list[str]:
        """Before the pattern's ``if``: the escaping first (evaluating the map runs its
        regex, which would replace the pattern's captures)."""
        return ((['set $confmig_qmark "' + self.escaped + '";'] if self.captures else [])
                + (['set $confmig_qmarkv "";'] if self.values else [])
                + (['set $confmig_rq "' + self.escaped + '";'] if self.query is not None
                   else []))

    def sets(self) -> str:
        out = ""
        if self.captures:
            out += f' set $confmig_qmark "$confmig_qmark:{"".join(self.captures)}";'
        if self.values:
            out += f' set $confmig_qmarkv "{"".join(self.values)}";'
        if self.query is not None:
            out += f" set $confmig_rq {q('1:${confmig_rq}:' + self.query)};"
        return out

    def query_check(self, flag: str = "", applies: str = "") -> list[str]:
        """403 where the target's query (after *flag*'s value, where it matches *applies*)
        is one Apache %-escapes and nginx would send as it is."""
        if self.query is None:
            return []
        before = f"${{{flag[1:]}}}:" if flag else ""
        if self.query_ctl:
            ctl = QUERY_CTL if self.query_captures else QUERY_CTL_RAW
            return ['set $confmig_qe "' + before + '${confmig_rq}";',
                    f'if ($confmig_qe ~ "^{applies + ":" if applies else ""}1:{ctl}") '
                    "{ return 403; }"]
        regex = {(False, False): QUERY_ESCAPED, (False, True): QUERY_ESCAPED_QSA,
                 (True, False): QUERY_ESCAPED_RAW, (True, True): QUERY_ESCAPED_RAW_QSA}[
                     (self.query_values, self.qsappend)]
        return ['set $confmig_qe "' + before + '${confmig_rq}\\n${args}";',
                f'if ($confmig_qe ~ "^{applies + ":" if applies else ""}1:{regex}") '
                "{ return 403; }"]

    def __str__(self) -> str:
        return ", ".join([*self.captures, *self.values])


def _unsafe_qmark(rule: RewriteRule, lookups: Lookups, escaped: bool = False) -> Qmark:
    """The nginx expressions of the substitution's expansions before its own first ``?``
    (after the action was made: *lookups* knows the variables of its map lookups).
    *escaped*: an [R] target Apache %-escapes, which it does after the host only
    (``escape_absolute_uri``): the scheme's and host's expansions are left out (nginx's
    Host never holds a '?')."""
    out = Qmark()
    if rule.nosub:
        return out
    tokens = tokenize(rule.substitution)
    for token in tokens[_authority_end(tokens) if escaped else 0:]:
        if token[0] == TOKEN_SPAN and "?" in token[1]:
            break
        if token[0] == TOKEN_REF and token[2] and token[1] == "$" and not rule.negate:
            part = f"${token[2]}"
        elif token[0] == TOKEN_REF and token[1] == "%" and token[2] in lookups.saved:
            part = "${" + lookups.saved[token[2]][1:] + "}"
        elif token[0] == TOKEN_VAR:
            name = lookups.env_variable(token[1]) or _variable(token[1])
            out.values.append(f"${{{name}}}")
            continue
        elif token[0] == TOKEN_MAP and token in lookups.names:
            if lookups.uri_safe(token):
                continue  # every value it can have is one Apache leaves as it is
            part = "${" + lookups.names[token][1:] + "}"
            if not any(t[0] == TOKEN_REF for t in tokenize(token[3] or "")):
                out.values.append(part)  # a value of the map's file, as it is
                continue
            # its default copies a back-reference: escaped as a capture is (a value of
            # the file with a literal %3F then counts too: stricter)
        else:
            continue
        if part not in out.captures:
            out.captures.append(part)
    out.values = list(dict.fromkeys(out.values))
    return out


def _authority_end(tokens: tuple) -> int:
    """The index of the first token after an absolute URL's ``scheme://host``: the literal
    with the '/' after the host, or ``%{REQUEST_URI}`` (which starts with one); 0 when the
    substitution is not such a URL, all of them when nothing follows the host."""
    seen_scheme = False
    for index, token in enumerate(tokens):
        if token[0] == TOKEN_VAR and seen_scheme and token[1].upper() == "REQUEST_URI":
            return index
        if token[0] not in (TOKEN_SPAN, TOKEN_RAW):
            continue
        text = token[1]
        if not seen_scheme:
            head, sep, text = text.partition("://")
            if not sep or "/" in head or "?" in head:
                return 0
            seen_scheme = True
        if "/" in text or "?" in text:
            return index
    return len(tokens) if seen_scheme else 0  # all of it is the host


def _qmark_comment(rule: RewriteRule, qmark: Qmark) -> str:
    extra = {"escape": " (a redirect: denied where it holds a byte Apache %-escapes)",
             "noescape": " (a redirect with [NE]: denied where it holds a '%')"}
    what = [f"a '?' from {qmark} is Apache's 403{extra.get(qmark.redirect, '')}"] \
        if qmark.captures or qmark.values else []
    if qmark.query is not None:
        what.append("a query Apache %-escapes is denied")
    return f"# {_where(rule)}: {'; '.join(what)}"


def _redirects(action: str) -> bool:
    """Does *action* (nginx) answer with a redirect (its Location made of the target)?"""
    return action.endswith(("permanent;", "redirect;")) or re.match(r"return 3\d\d ", action) \
        is not None


def _qmark_checks(rule: RewriteRule, qmark: Qmark, flag: str, applies: str,
                  bad_escape: str = "") -> list[str]:
    """After the line that sets *flag* (the parts of *qmark* set where the pattern
    matched): 403 where the flag's value matches *applies* (the pattern and the conditions
    held) and an expansion holds a ``?``; with *bad_escape* (the flag's value where an
    internal rewrite is made), 400 where one holds a bad %-escape: Apache's internal
    redirect parses the new path again."""
    if not qmark:
        return []
    out = [_qmark_comment(rule, qmark)]
    tests: list[tuple[str, str, str]] = []  # (variable, its regex after the flag, status)
    if qmark.captures:
        out.append(f'set $confmig_qmark "${{{flag[1:]}}}:$confmig_qmark";')
    if qmark.values:
        out.append(f'set $confmig_qmarkv "${{{flag[1:]}}}:$confmig_qmarkv";')
    for applies_re, status, regexes in ((applies, 403, qmark.patterns()),
                                        (bad_escape, 400,
                                         (CAPTURE_BAD_ESCAPE, VALUE_BAD_ESCAPE))):
        if not applies_re:
            continue
        if qmark.captures:
            tests.append(("$confmig_qmark", f"^{applies_re}:{regexes[0]}", str(status)))
        if qmark.values:
            tests.append(("$confmig_qmarkv", f"^{applies_re}:{regexes[1]}", str(status)))
    out += [f'if ({var} ~ "{regex}") {{ return {status}; }}' for var, regex, status in tests]
    return out + qmark.query_check(flag, applies)


def _qmark_lines(rule: RewriteRule, regex: str, qmark: Qmark) -> list[str]:
    """403 where the rule's pattern matches (or, negated, does not) and an expansion of
    *qmark* holds a ``?``: exactly Apache's answer when nothing else decides whether the
    rule runs."""
    if not qmark:
        return []
    op = "!~" if rule.negate else "~"
    out = [_qmark_comment(rule, qmark), *qmark.resets(),
           f"if ($uri {op} {qr(regex)}) {{{qmark.sets()} }}"]
    captures, values = qmark.patterns()
    if qmark.captures:
        out.append(f'if ($confmig_qmark ~ "^{captures}") {{ return 403; }}')
    if qmark.values:
        out.append(f'if ($confmig_qmarkv ~ "^{values}") {{ return 403; }}')
    return out + qmark.query_check()


def _env_unset(rule: RewriteRule, number: str, flag: str, ones: str, lookups: Lookups,
               out: RewriteOut) -> list[str]:
    """A rule that reads a tracked ``%{ENV:NAME}`` no rule of this pass may have set yet:
    Apache would read it from elsewhere (SetEnvIf, SetEnv, the server's environment), so
    the rule is denied when it applies then (announced)."""
    assert out.env is not None or not lookups.env_read
    unknown = sorted(lookups.env_read - (out.env.proven if out.env else set()))
    if not unknown:
        return []
    names = ", ".join(f"%{{ENV:{n.upper()}}}" for n in unknown)
    out.notes.append(RuleNote(_src(rule), "RewriteRule",
                              f"{names} before a rule of this ruleset set it: Apache reads "
                              "it from elsewhere (SetEnvIf, SetEnv, the server's "
                              "environment); such requests are denied (403)",
                              answer=403))
    marks = "".join(f"${{confmig_s_{n}}}" for n in unknown)
    return [f'set $confmig_u{number} "${{{flag[1:]}}}:{marks}";',
            f'if ($confmig_u{number} ~ "^{ones}:1*0") {{ return 403; }}']


def _internal(plan: RewritePlan, rule: RewriteRule, number: str, regex: str, saved: dict[int, str],
              checks: list[list[str]], action: str, lines: list[str],
              alias: AliasGuard | None, guard: str = "", continuing: bool = False,
              lookups: Lookups | None = None, typed: int = 0,
              qmark: Qmark | None = None, stop: bool = False,
              from_start: bool = False) -> list[str]:
    """An internal rewrite: applied when the conditions and the pattern hold (flag ``1…1``),
    except that a URL rewritten to the file it already maps to stops the rules and is served
    (``…s``: Apache makes no internal redirect; with the rule's ``[T]`` type: the status
    *typed* that ``error_page`` sends to its named location), and that a directory requested
    without its slash gets mod_dir's 301 instead (``…0``: the rules stop too).

    *from_start*: an earlier rewrite without ``[L]`` may have changed the path and this one
    ends the rules.  Apache compares the final path with the request's (:data:`START_URI`),
    not with the path the previous rule left: a chain back to the
    request's own file makes no internal redirect, so nginx rewrites back to it with
    ``break`` (a ``last`` would run the chain again, a loop: 500)."""
    flag = f"$confmig_r{number}"
    op = "!~" if rule.negate else "~"
    to, target = _target_var(plan, rule, number, saved, lookups)
    lines.append(f'set $confmig_p{number} "";')
    lines.append(f'set {to} "";')
    also = "".join(f" {line}" for line in (lookups.sets if lookups else []))
    also += "" if rule.negate or target is None else f" set {to} {q(target)};"
    copied = qmark.copied_as_they_are() if qmark is not None else []
    if qmark is not None:
        lines += qmark.resets()
        also += qmark.sets()
    if copied:
        lines.append('set $confmig_dec "";')
        also += f' set $confmig_dec "{"".join(copied)}";'
    lines.append(f"if ($uri {op} {qr(regex)}) {{ set $confmig_p{number} 1;{also} }}")
    parts = "".join(f"${{confmig_g{number}_{i}}}" for i in range(len(checks)))
    lines.append(f'set {flag} "{guard}{parts}${{confmig_p{number}}}${{confmig_slash}}";')
    ones = "1" * (len(checks) + 1)
    if not rule.negate and target is not None:
        # a rewrite to the file the URL maps to: no internal redirect (…1 + $confmig_mapped).
        # The target's captures are %-escaped where nginx escapes them (UNKNOWN_ESCAPING):
        # compared with the path copied the same way.
        if from_start:
            lines.append(START_URI)
            lines.append(f"if ({to} = $confmig_uq0) "
                         f"{{ set {flag} \"${{{flag[1:]}}}$confmig_mapped\"; }}")
        else:
            lines += ['if ($uri ~ "(?s)^(.*)\\z") { set $confmig_uq $1; }',
                      f"if ({to} = $confmig_uq) "
                      f"{{ set {flag} \"${{{flag[1:]}}}$confmig_mapped\"; }}"]
    # the 403 before mod_dir's 301 (and with no internal redirect: Apache expands first);
    # the 400 only where the last line rewrites, the new path being parsed again
    lines += _qmark_checks(rule, qmark or Qmark(), flag, f"{ones}[01][a-z]*",
                           "" if continuing else f"{ones}1")
    if copied:
        # (after the 400 of a bad %-escape: Apache parses the new path before it decodes)
        lines += [f"# {_where(rule)}: Apache decodes {', '.join(copied)} again: a %-escape "
                  "in it is denied",
                  f'set $confmig_dec "${{{flag[1:]}}}:$confmig_dec";',
                  f'if ($confmig_dec ~ "^{ones}1:{DECODED_AGAIN}") {{ return 403; }}']
    if continuing:
        lines += _pending_escape(rule, qmark or Qmark(), flag, ones)
    elif qmark is not None and qmark.pattern_captures():
        # ($confmig_qmark: the flag, then <escaping>:<captures>, set by _qmark_checks)
        lines += [f"# {_where(rule)}: Apache decodes {', '.join(qmark.pattern_captures())} "
                  "again: a %-escape in it is denied",
                  f'if ($confmig_qmark ~ "^{ones}1:{CAPTURE_DECODED_AGAIN}") {{ return 403; }}']
    if typed and not rule.negate and target is not None:
        # no internal redirect: [T]'s type, for a file (a directory: denied)
        lines += [f'set $confmig_tt "${{{flag[1:]}}}:";',
                  'if (-d $request_filename) { set $confmig_tt "${confmig_tt}d"; }',
                  f'if ($confmig_tt ~ "^{ones}1[^:]+:d\\z") {{ return 403; }}',
                  f'if ($confmig_tt ~ "^{ones}1[^:]+:\\z") {{ return {typed}; }}']
    if alias is not None:  # mod_alias, after mod_rewrite, redirects the original URL
        lines += alias.answer(ones, flag)
    if from_start and not rule.negate and target is not None and action.endswith(" last;"):
        lines.append(f"# {_where(rule)}: back to the request's own file: no internal "
                     "redirect (Apache), the file is served")
        lines.append(f'if ({flag} ~ "^{ones}1[a-z]") {{ {action[:-len(" last;")]} break; }}')
    if rule.last:
        end = "set $confmig_go stop;" if stop else "break;"  # (translate's falls_back)
        lines.append(f"if ({flag} ~ \"^{ones}(?:1.|0)\") {{ {end} }}")
    if continuing:
        # Apache's next rules match the new path with the request's PATH_INFO after it,
        # which nginx does not know: a URL with PATH_INFO is denied here (its parent is
        # not a directory, and it is not an existing directory asked for with its slash)
        lines.append(f'set $confmig_x "${{{flag[1:]}}}:$confmig_start";')
        lines.append(f'if ($confmig_x ~ "^{ones}1:(?::|e:.*[^/]\\z)") {{ return 403; }}')
    final = _rewrite_any(action) if rule.negate else action
    lines.append(f"if ({flag} = {ones}1) {{ {final} }}")
    return lines


#: The request's path (``$confmig_start``), copied as nginx copies a capture at that point
#: of the rules (it escapes captures by the request's state, which a rewrite changes), to be
#: compared with a target that ends the rules after an earlier rewrite (:func:`_internal`'s
#: *from_start*).
START_URI = 'if ($confmig_start ~ "(?s)^[a-z]*:(.*)\\z") { set $confmig_uq0 $1; }'


def _pending_escape(rule: RewriteRule, qmark: Qmark, flag: str, ones: str) -> list[str]:
    """A rewrite followed by more rules: Apache parses and %-decodes the new path only at the
    internal redirect once the rules are over, so its answer for a bad %-escape (400) or a
    %-escape in a ``$N`` (the note's 403, :data:`CAPTURE_DECODED_AGAIN`) belongs to the
    path the last rewrite made.  Where this rewrite applies, ``$confmig_bad`` (""/400/403)
    says what its path brings; :func:`_bad_escape_end` answers it where the rules end (a
    later rewrite replaces it; a later ``[F]`` answers first, as on Apache)."""
    lines = [f"# {_where(rule)}: the answer its new path brings (a bad %-escape: 400) "
             "is given where the rules end",
             f'if ({flag} ~ "^{ones}1") {{ set $confmig_bad ""; }}']
    # ($confmig_qmark…: the flag, then what was copied, set by _qmark_checks)
    if qmark.pattern_captures():
        lines.append(f'if ($confmig_qmark ~ "^{ones}1:{CAPTURE_DECODED_AGAIN}") '
                     "{ set $confmig_bad 403; }")
    if qmark.captures:
        lines.append(f'if ($confmig_qmark ~ "^{ones}1:{CAPTURE_BAD_ESCAPE}") '
                     "{ set $confmig_bad 400; }")
    if qmark.values:
        lines.append(f'if ($confmig_qmarkv ~ "^{ones}1:{VALUE_BAD_ESCAPE}") '
                     "{ set $confmig_bad 400; }")
    return lines


#: Where the rules end without a rewrite of their own (the last line, a ``- [L]``): the
#: answer a rewrite before left (:func:`_pending_escape`).
BAD_ESCAPE_END = ['if ($confmig_bad = 400) { return 400; }',
                  'if ($confmig_bad = 403) { return 403; }']


def _bad_escape_end(out: RewriteOut, flag: str = "", ones: str = "") -> list[str]:
    """The answer of :func:`_pending_escape` where the rules end: after the last rule, or
    (with *flag*) before a ``- [L]`` whose *flag* equals *ones*."""
    if not out.pending_escape:
        return []
    if not flag:
        return ["# the rules end: the answer the last rewrite's path brings", *BAD_ESCAPE_END]
    return [f'set $confmig_bx "${{{flag[1:]}}}:$confmig_bad";',
            f'if ($confmig_bx = "{ones}:400") {{ return 400; }}',
            f'if ($confmig_bx = "{ones}:403") {{ return 403; }}']


def _target_var(plan: RewritePlan, rule: RewriteRule, number: str, saved: dict[int, str],
                lookups: Lookups | None = None) -> tuple[str, str | None]:
    """The variable and value of an internal rewrite's target as the URL of the file Apache
    compares with the one the request maps to ("initial URL equal rewritten URL": no
    internal redirect).  Apache compares filesystem paths: a relative substitution is the
    directory's path plus it — whatever RewriteBase says, which only makes the URL of the
    internal redirect — and a URL-path (``/x``, ``%{REQUEST_URI}``) is never the file
    (None: no comparison; Apache redirects, and loops when the rule matches again)."""
    path, _has_query, _query = _split_query(rule.substitution)
    target = _template(tokenize(path), saved, lookups)
    if not _relative(path):
        return f"$confmig_to{number}", None
    return f"$confmig_to{number}", plan.strip + target


def _rewrite_any(action: str) -> str:
    """A rewrite whose pattern is replaced by ``^`` (a negated rule has no captures)."""
    words = action.split(" ", 2)
    return f"rewrite ^ {words[2]}" if len(words) == 3 else action


def _conditions(rule: RewriteRule, number: str, lines: list[str]
                ) -> tuple[list[list[str]], dict[int, str]]:
    """One flag per OR-group of conditions; the captures of the last regex condition saved."""
    groups: list[list[Condition]] = [[]]
    for cond in rule.conditions:
        groups[-1].append(cond)
        if not cond.ornext:
            groups.append([])
    groups = [g for g in groups if g]
    uses = _cond_refs(rule)
    if uses and len(groups) != len(rule.conditions):
        raise Untranslatable("%N with [OR] conditions: which condition matched last is "
                             "not known in advance")
    last_regex = max((i for i, c in enumerate(rule.conditions) if c.kind == "regex"),
                     default=-1)
    saved = {n: f"$confmig_c{number}_{n}" for n in uses}
    if uses and last_regex < 0:
        raise Untranslatable("%N without a regex condition")
    position = 0
    for gi, group in enumerate(groups):
        var = f"$confmig_g{number}_{gi}"
        lines.append(f'set {var} "";')
        merged = _either_file_or_directory(group)
        for cond in group:
            if cond is merged:  # tested with its pair's -e
                position += 1
                continue
            test = _cond(cond, number, position, lines)
            if merged is not None and cond.kind in ("-d", "-f") and merged.test == cond.test \
                    and not cond.negate:
                test = "-e" + test[2:]
            body = f"set {var} 1;"
            if position == last_regex:
                body += "".join(f" set {saved[n]} ${n};" for n in sorted(uses))
            lines.append(f"if ({test}) {{ {body} }}")
            position += 1
    return [[str(i)] for i in range(len(groups))], saved


def _either_file_or_directory(group: list[Condition]) -> Condition | None:
    """In an [OR] group with ``TEST -d`` and ``TEST -f`` (h5bp's hidden-file rule), the
    second of the two: nginx's ``-e`` is "a file or a directory" (``is_file || is_dir ||
    is_link``, and its stat follows links as Apache's does, so ``is_link`` is never set),
    one stat instead of two (None: no such pair)."""
    seen: dict[tuple[str, str], Condition] = {}
    for cond in group:
        if cond.kind in ("-d", "-f") and not cond.negate:
            other = seen.get((cond.test, "-f" if cond.kind == "-d" else "-d"))
            if other is not None:
                return cond
            seen.setdefault((cond.test, cond.kind), cond)
    return None


def _cond_refs(rule: RewriteRule) -> set[int]:
    refs: set[int] = set()
    templates = [rule.substitution]
    while templates:
        for tok in tokenize(templates.pop()):
            if tok[0] == TOKEN_REF and tok[1] == "%":
                refs.add(tok[2])
            elif tok[0] == TOKEN_MAP:  # ${map:key|default}: its key and default too
                templates += [t for t in tok[2:] if t]
    for cond in rule.conditions:
        for tok in tokenize(cond.test):
            if tok[0] == TOKEN_REF:
                raise Untranslatable("back-references in a condition's test string")
    return refs


def _cond(cond: Condition, number: str, position: int, lines: list[str]) -> str:
    value = _test_value(cond.test, number, position, lines)
    if cond.kind == "regex":
        op = ("!~" if cond.negate else "~") + ("*" if cond.nocase else "")
        return f"{value} {op} {qr(url_path(cond.pattern))}"
    if cond.kind in FILE_TESTS:
        return f"{'!' if cond.negate else ''}{FILE_TESTS[cond.kind]} {value}"
    if cond.kind == "=" and not cond.nocase:
        return f"{value} {'!=' if cond.negate else '='} {q(cond.pattern)}"
    raise Untranslatable(f"RewriteCond {cond.raw_pattern}: no nginx test")


def _test_value(test: str, number: str, position: int, lines: list[str]) -> str:
    """A condition's test string as one nginx variable (a ``set`` when it is composite)."""
    toks = tokenize(test)
    if len(toks) == 1 and toks[0][0] == TOKEN_VAR:
        return "$" + _variable(toks[0][1])
    var = f"$confmig_t{number}_{position}"
    lines.append(f"set {var} {q(_template(toks, {}))};")
    return var


def _variable(name: str) -> str:
    if name in VARIABLES:
        return VARIABLES[name]
    if name.startswith("HTTP:"):
        return "http_" + name[5:].lower().replace("-", "_")
    raise Untranslatable(f"%{{{name}}} has no nginx variable")


def _template(toks: tuple, saved: dict[int, str], lookups: Lookups | None = None) -> str:
    """A substitution or test string as an nginx complex value (RewriteMap lookups only
    with *lookups*, the rule's)."""
    out: list[str] = []
    for tok in toks:
        kind = tok[0]
        if kind in (TOKEN_SPAN, TOKEN_RAW):
            text = tok[1]
            if "$" in text:
                raise Untranslatable("a literal '$' (nginx would read a variable)")
            out.append(text)
        elif kind == TOKEN_VAR:
            env = lookups.env_variable(tok[1]) if lookups is not None else None
            out.append("${" + (env or _variable(tok[1])) + "}")
        elif kind == TOKEN_REF:
            if tok[1] == "$":
                if tok[2] == 0:
                    raise Untranslatable("$0 (nginx has no whole-match variable)")
                out.append(f"${tok[2]}")
            else:
                out.append("${" + saved[tok[2]][1:] + "}")
        elif kind == TOKEN_MAP:
            if lookups is None:
                raise Untranslatable("RewriteMap lookups (outside the substitution)")
            out.append("${" + lookups.variable(tok)[1:] + "}")
    return "".join(out)


#: Why a kind of RewriteMap has no nginx form.
NO_MAP_FORM = {
    "int": "stock nginx cannot change the case of a value or %-escape it",
    "prg": "a program answers every lookup",
    "dbm": "nginx does not read DBM files",
    "dbd": "a database query answers every lookup",
    "fastdbd": "a database query answers every lookup",
}


@dataclass
class Lookups:
    """The RewriteMap lookups of one rule's substitution.  Each ``${name:key|default}`` is
    a variable set before the rule's action — where the pattern's captures are its own —
    from an http-level ``map`` of the ``txt:`` map's lines (one ``map`` per RewriteMap, on
    the shared ``$confmig_mkey``, with ``$confmig_mdef`` as its default: Apache's default
    applies to a key the map does not have).  A ``rnd:`` map without ``|`` in its values is
    that table too; other kinds of map have no nginx form (:data:`NO_MAP_FORM`)."""

    maps: dict[str, RewriteMap]
    http: Any  # confmig.convert.nginx.maps.HttpMaps (which imports this module)
    saved: dict[int, str]
    sets: list[str] = field(default_factory=list)
    names: dict[tuple, str] = field(default_factory=dict)
    env: EnvVars | None = None  # the ruleset's tracked %{ENV:…}
    env_read: set[str] = field(default_factory=set)  # those the substitution reads

    def env_variable(self, name: str) -> str | None:
        """The nginx variable of ``%{NAME}`` when it is a tracked ``ENV:…`` (else None)."""
        if self.env is None or name[:4].upper() != "ENV:" \
                or name[4:].lower() not in self.env.values:
            return None
        self.env_read.add(name[4:].lower())
        return f"confmig_e_{name[4:].lower()}"

    def uri_safe(self, tok: tuple) -> bool:
        """Are all the values lookup *tok* can give (the map file's, a literal default)
        made of bytes Apache never %-escapes in a URL (no '?' either)?"""
        _, name, _key, default = tok
        if any(t[0] not in (TOKEN_SPAN, TOKEN_RAW) for t in tokenize(default or "")):
            return False
        rmap = self.maps.get(name)
        values = [default or ""]
        if rmap is not None:
            if rmap.kind not in ("txt", "rnd"):
                return False
            table = rmap.entries()
            if table is None:
                return False
            values += table.values()
        return all(_URI_SAFE_TEXT.fullmatch(v) for v in values)

    def variable(self, tok: tuple) -> str:
        """The variable holding the value of lookup *tok* (its ``set`` lines in ``sets``)."""
        found = self.names.get(tok)
        if found is not None:
            return found
        _, name, key_tpl, default_tpl = tok
        key = _template(tokenize(key_tpl), self.saved)
        default = _template(tokenize(default_tpl), self.saved) if default_tpl else ""
        var = self.names[tok] = f"$confmig_mv{len(self.names)}"
        rmap = self.maps.get(name)
        if rmap is None:  # Apache: no such map, the lookup fails and the default is used
            self.sets.append(f"set {var} {q(default)};")
            return var
        # rnd: is a txt: map whose value, when it has '|', is one of its parts at random
        table = rmap.entries() if rmap.kind in ("txt", "rnd") else None
        if table is None or self.http is None:
            why = "cannot be read" if rmap.kind in ("txt", "rnd") else \
                "has no nginx form: " + NO_MAP_FORM.get(rmap.kind, "not a file of lines")
            raise Untranslatable(f"RewriteMap {name} ({rmap.kind}:) {why}")
        if rmap.kind == "rnd" and any("|" in value for value in table.values()):
            raise Untranslatable(f"RewriteMap {name} (rnd:) picks one of a value's '|' parts "
                                 "at random for every lookup")
        if any("$" in value for value in table.values()):
            raise Untranslatable(f"RewriteMap {name}: a value with '$' (nginx would read a "
                                 "variable)")
        rows = [(f"~^{_regex_literal(k)}\\z", q(v)) for k, v in table.items()]
        mapped = self.http.map("$confmig_mkey", rows, "$confmig_mdef")
        self.sets += [f"set $confmig_mkey {q(key)};", f"set $confmig_mdef {q(default)};",
                      f"set {var} {mapped};"]
        return var


#: The bytes Apache's ``ap_escape_uri`` leaves as they are (``T_OS_ESCAPE_PATH``).
_URI_SAFE_TEXT = re.compile(r"[A-Za-z0-9$_.+!*'(),:;@&=/~-]*")


def _regex_literal(text: str) -> str:
    """*text* matched literally by a PCRE (a txt: map key, compared byte for byte)."""
    return "".join("\\" + ch if not (ch.isalnum() or ch in "_-/") and ch.isascii() else ch
                   for ch in text)


def _action(plan: RewritePlan, rule: RewriteRule, number: str, regex: str, saved: dict[int, str],
            out: RewriteOut, last: bool) -> str:
    """The directive that does what the rule does once it applies."""
    if rule.status_flag and (not rule.redirect or rule.redirect_code >= 400):
        return f"return {rule.redirect_code};"
    subst = rule.substitution
    if rule.nosub or subst == "-":
        if rule.redirect:
            raise Untranslatable("[R] without a substitution")
        if rule.last or rule.end:
            return "set $confmig_go stop;" if out.stop else "break;"
        return "set $confmig_noop 1;"
    path, has_query, query = _split_query(subst)
    if rule.qsnone:  # the substitution ended in "?" (or [QSD]): no query string
        if has_query:
            raise Untranslatable("a query in a substitution that also ends in '?'")
        has_query = True
    target = _template(tokenize(path), saved, out.lookups)
    absolute = target.startswith(("http://", "https://")) or (
        out.env is not None and out.env.scheme_led(target))
    if not absolute and _relative(path):
        if (rule.redirect and plan.base is None
                and "IgnoreContextInfo" not in plan.options):
            # Apache's quirk: without RewriteBase, a relative [R] target is prefixed with
            # the directory's *filesystem* path, which then appears in the URL.
            out.notes.append(RuleNote(_src(rule), "RewriteRule",
                                      "a relative [R] target without RewriteBase: Apache "
                                      f"redirects to the filesystem path {plan.directory}…; "
                                      "kept as Apache does it (set RewriteBase)", False))
            target = plan.directory + target
        else:
            target = plan.relative_to + target
    query_text = _template(tokenize(query), saved, out.lookups) if has_query else ""
    if "%" in target.replace("%{", ""):
        raise Untranslatable("a %-escape in the substitution (Apache decodes it again)")
    if not (rule.redirect or absolute) and re.search(r"\.[^/$]+/", target):
        out.notes.append(RuleNote(_src(rule), "RewriteRule",
                                  "a target with PATH_INFO after a file (script.php/…): in the "
                                  "next round Apache's %{REQUEST_FILENAME} is that file, "
                                  "nginx's $request_filename the whole path",
                                  fields=ANSWER_FIELDS))
    if rule.redirect or absolute:
        code = rule.redirect_code if rule.redirect else 302
        url = target if absolute else "${scheme}://${http_host}" + target
        if code in (301, 302) and not rule.negate:
            flag = "permanent" if code == 301 else "redirect"
            url += _nginx_query(rule, has_query, query_text)
            return f"rewrite {qr(regex)} {q(url)} {flag};"
        if has_query and query_text:
            if rule.qsappend:
                out.uses_amp_args = True
                url += f"?{query_text}$confmig_amp_args"
            else:
                url += f"?{query_text}"
        elif not has_query and not rule.qsdiscard:
            url += "$is_args$args"
        return f"return {code} {q(url)};"
    if not (rule.last or last):
        if plan.base is not None and plan.base != plan.strip:
            raise Untranslatable("a rewrite without [L] followed by more rules, under a "
                                 "RewriteBase other than the directory")
        if not _relative(path):
            raise Untranslatable("a rewrite to a URL-path without [L] followed by more rules "
                                 "(Apache's next rules match the whole path, nginx's the "
                                 "part after the directory)")
        flag = ""
    else:
        flag = " last"
    return f"rewrite {qr(regex)} {q(target + _nginx_query(rule, has_query, query_text))}{flag};"


def _relative(path: str) -> bool:
    """Does the substitution *path* start relative to the directory (not with ``/`` or a
    variable such as ``%{REQUEST_URI}``)?"""
    toks = tokenize(path)
    if not toks:
        return True
    first = toks[0]
    if first[0] in (TOKEN_SPAN, TOKEN_RAW):
        return not first[1].startswith("/")
    return first[0] == TOKEN_REF


def _split_query(subst: str) -> tuple[str, bool, str]:
    """Split at the first ``?`` outside ``%{…}``/``${…}``."""
    depth = 0
    for i, ch in enumerate(subst):
        if ch == "{" and i and subst[i - 1] in "%$":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "?" and not depth:
            return subst[:i], True, subst[i + 1:]
    return subst, False, ""


def _nginx_query(rule: RewriteRule, has_query: bool, query: str) -> str:
    """nginx's own query rules for ``rewrite``: arguments are appended unless the replacement
    ends with ``?``; with new arguments, the old ones follow after ``&``."""
    if not has_query:
        return "?" if rule.qsdiscard else ""
    if not query:
        return "?"
    if rule.qsappend and not rule.qsdiscard:
        return f"?{query}"
    return f"?{query}?"


def _deny(plan: RewritePlan, rule: RewriteRule, reason: str, out: RewriteOut) -> list[str]:
    out.notes.append(RuleNote(_src(rule), "RewriteRule",
                              f"{reason}: requests it matches are denied (403)", answer=403))
    lines = [f"# untranslatable ({reason}): {_text(rule)}"]
    try:
        if rule.negate:
            raise Untranslatable("negated")
        regex = per_directory(rule.pattern, plan.strip, rule.nocase)
        lines.append(f"if ($uri ~ {qr(regex)}) {{ return 403; }}")
    except Untranslatable:
        lines.append("return 403;")
    return lines


def _src(rule: RewriteRule) -> Source:
    d = rule.directive
    return Source(d.file, d.line) if d is not None else Source("", 0)


def _where(rule: RewriteRule) -> str:
    return str(_src(rule))


def _text(rule: RewriteRule) -> str:
    return " ".join(str(rule).split())
