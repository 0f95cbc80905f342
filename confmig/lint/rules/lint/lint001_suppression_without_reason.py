"""LINT001: an inline suppression that does not say why.

The finding is made by :func:`confmig.lint.suppress.apply_suppressions` (it needs every
other rule's findings first); this class is the rule's code, docs and examples.
"""

from __future__ import annotations

from confmig.lint.finding import Severity
from confmig.lint.rule import Rule, register


@register
class SuppressionWithoutReason(Rule):
    code = "LINT001"
    name = "suppression-without-reason"
    summary = "An inline suppression does not say why"
    rationale = (
        "A `# confmig: ignore[CODE]` comment hides a finding from everyone who reads the lint "
        "output later. Without a reason nobody can tell whether it is still needed, so every "
        "suppression must explain itself after the brackets."
    )
    bad = "# confmig: ignore[SYN003]\nFooBarModuleSetting on\n"
    good = ("# confmig: ignore[SYN003] set by our in-house mod_foobar\n"
            "FooBarModuleSetting on\n")
    severity = Severity.warning
    fix = "add the reason after the brackets"
