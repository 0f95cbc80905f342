"""Sites for Apache's own limits, where hostile configs and requests meet them.

* PCRE's match limit: ``ap_regexec`` runs ``pcre2_match`` with PCRE2's default limits (match
  limit 10,000,000) and no JIT, and every caller takes an error as "no match".  Each pattern
  below backtracks about n**4 (``P5``) or n**3 (``P4``) times on its subject before it finds
  the letter of its second alternative; one more ``a`` takes it over the limit.  The ``low``
  cases match, the ``high`` ones hit the limit: Apache answers as for no match (and a negated
  pattern holds).  Each module has its own marker letters, so no pattern meets another's
  subject.
* mod_rewrite's ``[N]`` loop bounded by the URL length: ``strlen(r->filename) > 2 *
  LimitRequestLine`` answers 500 (counted in bytes).
"""

from __future__ import annotations

from tests.differential.harness import Case, SiteSpec

# P5 = "Sa*a*a*a*a*c|E" on "S" + "a"*n + "Ec": 9,691,377 match() calls at n=121, over
# 10,000,000 at n=122 (measured with (*LIMIT_MATCH=...)).
P5_LOW, P5_HIGH = 121, 122
# P4 = "^a*a*a*a*c|E" on "a"*n + "Ec": 9,962,682 at n=389, over 10,000,000 at n=390.
P4_LOW, P4_HIGH = 389, 390


def p5(start: str, end: str) -> str:
    return f"{start}a*a*a*a*a*c|{end}"


def s5(start: str, end: str, n: int) -> str:
    return f"{start}{'a' * n}{end}c"


def s4(n: int) -> str:
    return f"{'a' * n}Ec"


def pcre_match_limit() -> SiteSpec:
    """The same catastrophic pattern in every module that matches config regexes."""
    files: dict[str, str | None] = {
        "rr/.htaccess": f'RewriteEngine On\nRewriteRule "{p5("R", "S")}" - [F]\n',
        "rn/.htaccess": f'RewriteEngine On\nRewriteRule "!{p5("N", "O")}" - [F]\n',
        "rc/.htaccess": ('RewriteEngine On\n'
                         'RewriteCond %{QUERY_STRING} "^a*a*a*a*c|E"\n'
                         'RewriteRule ^ - [F]\n'),
        "rcn/.htaccess": ('RewriteEngine On\n'
                          'RewriteCond %{QUERY_STRING} "!^a*a*a*a*c|E"\n'
                          'RewriteRule ^ - [F]\n'),
        "fm/.htaccess": f'<FilesMatch "{p5("F", "G")}">\n    Require all denied\n</FilesMatch>\n',
        "rm/.htaccess": f'RedirectMatch 302 "{p5("M", "P")}" /elsewhere\n',
        "se/.htaccess": (f'SetEnvIf Request_URI "{p5("V", "W")}" blocked\n'
                         "<RequireAll>\n    Require all granted\n"
                         "    Require not env blocked\n</RequireAll>\n"),
        "if/.htaccess": (f'<If "%{{REQUEST_URI}} =~ /{p5("I", "J")}/">\n'
                         "    Require all denied\n</If>\n"),
        "ifn/.htaccess": (f'<If "%{{REQUEST_URI}} !~ /{p5("K", "L")}/">\n'
                          "    Require all denied\n</If>\n"),
        "lm/": None,
        "x.txt": None,
    }
    files[f"dm/{s5('D', 'H', P5_HIGH)}/f.txt"] = None
    # Each case costs Apache (and the model) ten million backtracking steps: the modules
    # other than mod_rewrite get the case over the limit only (the model's tests show the
    # same pattern matching just under it in each of them).
    cases: list[Case] = []
    for n, what in ((P5_LOW, "matches"), (P5_HIGH, "hits PCRE's match limit: no match")):
        cases += [
            Case(f"/rr/{s5('R', 'S', n)}", f"RewriteRule {what}"),
            Case(f"/rn/{s5('N', 'O', n)}", f"negated RewriteRule: the pattern {what}"),
        ]
    what = "hits PCRE's match limit: no match"
    cases += [
        Case(f"/fm/{s5('F', 'G', P5_HIGH)}", f"FilesMatch {what}"),
        Case(f"/rm/{s5('M', 'P', P5_HIGH)}", f"RedirectMatch {what}"),
        Case(f"/se/{s5('V', 'W', P5_HIGH)}", f"SetEnvIf {what}"),
        Case(f"/if/{s5('I', 'J', P5_HIGH)}", f"<If> =~ {what}"),
        Case(f"/ifn/{s5('K', 'L', P5_HIGH)}", f"<If> !~: the pattern {what}"),
        Case(f"/lm/{s5('Q', 'U', P5_HIGH)}", f"LocationMatch {what}"),
        Case(f"/dm/{s5('D', 'H', P5_HIGH)}/f.txt", f"DirectoryMatch {what}"),
    ]
    for n, side in ((P4_LOW, "matches"), (P4_HIGH, "hits the limit (by 0.4 %)")):
        cases += [
            Case(f"/rc/x.txt?{s4(n)}", f"RewriteCond {side}"),
            Case(f"/rcn/x.txt?{s4(n)}", f"negated RewriteCond: the pattern {side}"),
        ]
    return SiteSpec(
        "pcre-limit", files, cases,
        vhost_extra=f'<LocationMatch "{p5("Q", "U")}">\n    Require all denied\n'
                    f"</LocationMatch>\n"
                    f'<DirectoryMatch "{p5("D", "H")}">\n    Require all denied\n'
                    f"</DirectoryMatch>\n",
    )


def rewrite_rounds() -> SiteSpec:
    """``[N]`` with a huge (or the default) round limit: the URL grows by one byte a round
    until ``r->filename`` is longer than 2 × LimitRequestLine (16,380 bytes) → 500; ``[N=5]``
    stops at its own limit first.  A non-ASCII byte counts as the bytes it is made of."""
    return SiteSpec(
        "rw-rounds",
        {
            "grow/.htaccess": "RewriteEngine On\nRewriteRule ^(.*)$ $1x [N=1000000000]\n",
            "growd/.htaccess": "RewriteEngine On\nRewriteRule ^(.*)$ $1x [N]\n",
            "few/.htaccess": "RewriteEngine On\nRewriteRule ^(a*)$ $1a [N=5]\n",
            # 11 segments of 100 é (2,210 bytes) written 8 times: 8,883 characters but
            # 17,683 bytes, over 2 × 8190 = 16,380; with e: 8,883 bytes, under it.  (Each
            # segment stays under NAME_MAX, 255 bytes.)
            "wide/.htaccess": "RewriteEngine On\nRewriteRule ^(.*)$ /t/$1$1$1$1$1$1$1$1 [L]\n",
        },
        [
            Case("/grow/a", "[N=1000000000]: 500 once the URL passes 16,380 bytes"),
            Case("/growd/a", "[N] (32,000 rounds): the URL length limit comes first"),
            Case("/few/", "[N=5]: the round limit → 500"),
            Case("/wide/" + "/".join(["%C3%A9" * 100] * 11),
                 "17,683 bytes in 8,883 characters: the limit counts bytes → 500"),
            Case("/wide/" + "/".join(["e" * 100] * 11), "8,883 bytes: under the limit"),
            Case("/wide/" + "e" * 256, "a path segment over NAME_MAX: Apache's walk fails "
                                       "(ENAMETOOLONG) → 403 before any rewriting"),
        ],
    )


def bad_requests() -> SiteSpec:
    """What Apache refuses while reading the request (``confmig.model.protocol``), for the
    requests ``http.client`` can send (the raw-byte ones are in
    ``tests/model/test_hostile_apache.py``): Host values ``fix_hostname`` refuses under
    ``HttpProtocolOptions Strict``, the request-line limit, a path segment over NAME_MAX.
    A redirect to ``%{HTTP_HOST}`` shows no Location is ever built from a refused Host."""
    redirect = "RewriteEngine On\nRewriteRule ^r$ http://%{HTTP_HOST}/there [R=302,L]\n"
    hosts = ["123", "1.2.3", "01.2.3.4", "a b", 'a"b', "a..b", "a/b", "ex.1com", "host:0",
             "host:99999", "host:", "[zz]", "[::1", "a,b", "."]
    return SiteSpec(
        "bad-requests",
        {".htaccess": redirect, "index.html": None},
        [
            *[Case("/r", f"Host {h!r}: 400 before any rewriting", headers={"Host": h})
              for h in hosts],
            Case("/r", "a valid Host with a trailing dot", headers={"Host": "bad-requests.test."}),
            Case("/r", "a dotted quad", headers={"Host": "127.0.0.1"}),
            Case("/?" + "q" * (8191 - len("GET /? HTTP/1.1")), "request line of 8191 bytes"),
            Case("/?" + "q" * (8192 - len("GET /? HTTP/1.1")), "8192 bytes: 414"),
            Case("/" + "n" * 256, "a path segment over NAME_MAX: 403"),
            Case("/" + "/".join(["n" * 250] * 20), "a path over PATH_MAX: 403"),
        ],
    )


def default_round_limit() -> SiteSpec:
    """``[N]`` without a number stops at REWRITE_MAX_ROUNDS, 32,000 in 2.4 (``++round >=
    maxrounds`` with ``round`` starting at 1): a rule that applies 31,998 times (the query
    grows, not the URL, so the length limit stays out of the way) is served, 31,999 times
    is 500."""
    def rule(k: int) -> str:
        return ("RewriteEngine On\n"
                f"RewriteCond %{{QUERY_STRING}} ^(a{{0,{k}}})$\nRewriteRule ^ x?%1a [N]\n")
    return SiteSpec(
        "rw-max-rounds",
        {"k1/.htaccess": rule(31997), "k1/x": None, "k2/.htaccess": rule(31998), "k2/x": None},
        [Case("/k1/x", "31,998 rounds: under the default"),
         Case("/k2/x", "31,999 rounds: the default [N] limit → 500")],
    )


SITES = [rewrite_rounds, bad_requests]
# Sites too costly for the shared Apache (its requests are sent in parallel with a 10 s
# timeout): tests/model/test_pcre_limit_apache.py runs them on an Apache of their own.
OWN_SERVER_SITES = [pcre_match_limit, default_round_limit]
