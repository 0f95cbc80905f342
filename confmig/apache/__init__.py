"""The bottom layer: facts about Apache httpd itself, not about any one configuration.

Which directives exist and where each may appear (`registry`: contexts, override classes,
the one AllowOverride parser and `overrides_permit`), which modules provide them
(`modules`), how many arguments each takes as measured on Apache (`arity`), and Apache's
path rules (`paths`). Every other layer (syntax, load, model, lint, convert) reads these;
this package imports nothing else from confmig.
"""

import os


def data_text(name: str) -> str:
    """The text of ``data/NAME``, read beside this file: confmig is installed as files, and
    ``importlib.resources`` would import its readers and ``zipfile`` first, a tenth of a lint
    hook's start (issue 17)."""
    with open(os.path.join(os.path.dirname(__file__), "data", name), encoding="utf-8") as f:
        return f.read()
