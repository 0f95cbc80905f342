"""SEC009: PHP display_errors switched on from the Apache config."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section

_SETTINGS = frozenset({"display_errors", "display_startup_errors"})
_PHP = frozenset({"php_flag", "php_value", "php_admin_flag", "php_admin_value"})
_ON = frozenset({"on", "1", "true", "yes", "stdout", "stderr"})


@register
class PhpDisplayErrors(Rule):
    code = "SEC009"
    name = "php-display-errors"
    summary = "php display_errors is on: PHP errors (paths, queries, secrets) reach visitors"
    rationale = (
        "php_flag/php_value display_errors on makes mod_php print warnings and errors into "
        "the page: file system paths, SQL, sometimes credentials in stack traces. It is a "
        "development setting; production logs errors instead (log_errors on)."
    )
    bad = "php_flag display_errors on\n"
    good = "php_flag display_errors off\nphp_flag log_errors on\n"
    fix = "php_flag display_errors off (and log_errors on)"

    directives = frozenset({*_PHP})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if len(d.args) >= 2 and d.args[0].lower() in _SETTINGS and d.args[1].lower() in _ON:
            yield self.finding(d, f"{d.name} {d.args[0]} {d.args[1]}: PHP errors are "
                                  "shown to every visitor")
