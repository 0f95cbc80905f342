"""The rules, one per file, by family (``syn/``, ``ctx/``, ``rw/``…).

A rule file is named after its code (``rw002_slash_in_perdir.py``) and registers exactly one
rule with :func:`confmig.lint.rule.register`; :func:`confmig.lint.rule.all_rules` finds them
by walking this package, so adding a rule is adding its file.  Other modules here are
helpers shared by a family and register nothing.  ``index.py`` says where each rule is and what
it looks at, so a lint run imports only the rules a file needs; it is generated from the rule
classes (``python tools/gen_rule_index.py``) and not used while it misses a rule file.
"""
