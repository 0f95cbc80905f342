"""The bottom layer: facts about Apache httpd itself, not about any one configuration.

Which directives exist and where each may appear (`registry`: contexts, override classes,
the one AllowOverride parser and `overrides_permit`), which modules provide them
(`modules`), how many arguments each takes as measured on Apache (`arity`), and Apache's
path rules (`paths`). Every other layer (syntax, load, model, lint, convert) reads these;
this package imports nothing else from confmig.
"""
